"""whittle's bridge to a Dask cluster (`whittle reduce --cluster ADDRESS`).

whittle runs this with Python (`WHITTLE_PYTHON`, else python3) as
`python -c SOURCE ADDRESS WHITTLE`, and speaks with it in JSON lines (docs/cluster.md):

  whittle -> client   {"op": "test", "test": {...}}          the test, once, before any query
                                                             (a pair's: also "seed": {...})
                      {"op": "run", "id": N, "task": {...}}  a query: the candidate's name and text
                                                             ("seed": true: the seed side's)
                      {"op": "cancel", "id": N}              its verdict is no longer wanted
                      (end of input)                         the run is over: cancel everything
  client -> whittle   {"ready": SLOTS}  or  {"error": MESSAGE}    once, first
                      {"id": N, "verdict": V, "output": ..., "message": ...}   one per query

Each query is a Dask task that runs `whittle cluster-task` on a worker, which runs the test in a
fresh folder exactly as `whittle reduce` does on one machine. Dask reruns the tasks of a worker
that is lost; a task that has lost too many workers is submitted again under a new key.
Functions here are shipped to the workers by value (this runs as __main__), so workers need only
`distributed` and the whittle binary (on PATH, or WHITTLE_BIN).
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid

# Times a query is submitted anew after Dask gave it up (KilledWorker).
RESUBMITS = 3
# How often a running test looks whether Dask still wants it.
POLL = 0.005


def run_query(whittle, task):
    """On a worker: runs one query with `whittle cluster-task`; its verdict as a dict."""
    from distributed import get_worker

    exe = os.environ.get("WHITTLE_BIN") or (
        whittle if os.path.exists(whittle) else shutil.which("whittle")
    )
    worker = get_worker()
    if not exe:
        return {
            "verdict": "failed",
            "message": f"whittle is not installed on the worker {worker.address}: "
            "put it on PATH or set WHITTLE_BIN",
        }
    key = worker.get_current_task()
    reap(stopping(worker))
    # Once a task of this worker found the sandbox working, the others skip its probe.
    env = dict(os.environ, WHITTLE_SANDBOX_PROBED="1") if getattr(worker, "whittle_sandbox", False) else None
    proc = subprocess.Popen(
        [exe, "cluster-task"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    data = json.dumps(task).encode()
    while True:
        try:
            # The input is sent once; a retry goes on where the first call left off.
            out, err = proc.communicate(data, timeout=POLL)
            break
        except subprocess.TimeoutExpired:
            data = None
            if not wanted(worker, key):
                # SIGTERM: whittle kills the test and removes its folder. The slot is free at
                # once (the next task need not wait for that); a later task reaps it.
                proc.terminate()
                stopping(worker).append((proc, time.monotonic()))
                return {"verdict": "cancelled"}
    try:
        verdict = json.loads(out)
        if verdict.get("sandbox"):
            worker.whittle_sandbox = True
        return verdict
    except ValueError:
        return {
            "verdict": "failed",
            "message": f"whittle cluster-task on {worker.address} exited {proc.returncode}: "
            + err.decode(errors="replace")[-800:],
        }


def stopping(worker):
    """This worker's cancelled queries still ending: (process, when it was told to stop)."""
    if not hasattr(worker, "whittle_stopping"):
        worker.whittle_stopping = []
    return worker.whittle_stopping


def reap(procs):
    """Waits for the ended ones; kills those that outlive SIGTERM by 5 s."""
    for proc, since in list(procs):
        if proc.poll() is None and time.monotonic() - since > 5:
            proc.kill()
            proc.wait()
        if proc.returncode is not None:
            procs.remove((proc, since))


def wanted(worker, key):
    """Whether the scheduler still wants this task (a cancelled future releases it)."""
    ts = worker.state.tasks.get(key)
    return ts is not None and ts.state not in ("cancelled", "released", "forgotten")


def main():
    address, whittle = sys.argv[1], sys.argv[2]
    out_lock = threading.Lock()

    def say(message):
        with out_lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    try:
        from distributed import Client, KilledWorker
    except ImportError as e:
        say({"error": f"{sys.executable} has no Dask ({e}): install it with "
             f"`{sys.executable} -m pip install distributed`, or run scripts/setup.sh and "
             "set WHITTLE_PYTHON=.cache/python/bin/python"})
        return 1
    try:
        client = Client(address, timeout="20s")
    except Exception as e:  # noqa: BLE001 (any failure to connect is reported the same way)
        say({"error": f"cannot reach the Dask scheduler at {address}: {e}"})
        return 1
    try:
        client.wait_for_workers(1, timeout=60)
    except Exception:  # noqa: BLE001
        say({"error": f"the Dask scheduler at {address} has no workers (waited 60 s): start some "
             f"with `dask worker {address}`"})
        return 1
    # The client batches what it sends the scheduler, 10 ms apart; a query waiting there is a
    # worker idle, so each goes at once (this client sends a message a query, never a flood).
    client.scheduler_comm.interval = 0
    say({"ready": sum(client.nthreads().values())})

    run = uuid.uuid4().hex[:12]
    test = seed_test = None
    futures = {}  # query id -> its future, while its verdict is wanted
    lock = threading.Lock()
    # Futures answered and not yet let go. Letting one go makes the scheduler tell its worker
    # to forget it; told just before that worker's next task, the scheduler holds the task for
    # its batch interval. So they are let go after the next submit.
    spent = []

    def submit(qid, task, attempt):
        future = client.submit(run_query, whittle, task, key=f"whittle-{run}-{qid}-{attempt}",
                               pure=False)
        with lock:
            futures[qid] = future
            spent.clear()
        future.add_done_callback(lambda f: finished(qid, task, attempt, f))

    def finished(qid, task, attempt, future):
        with lock:
            if futures.get(qid) is not future:
                return  # cancelled: whittle was told already
        if future.status == "finished":
            verdict = future.result()
        elif future.status == "error":
            error = future.exception()
            if isinstance(error, KilledWorker) and attempt < RESUBMITS:
                submit(qid, task, attempt + 1)
                return
            verdict = {"verdict": "failed", "message": f"the cluster lost the test: {error}"}
        else:
            return
        with lock:
            if futures.pop(qid, None) is not future:
                return
            spent.append(future)
        say(dict(verdict, id=qid))

    for line in sys.stdin:
        message = json.loads(line)
        op = message.get("op")
        if op == "test":
            # A pair's seed side has a test of its own.
            test, seed_test = message["test"], message.get("seed")
        elif op == "run":
            task = message["task"]
            side_test = seed_test if task.get("seed") and seed_test is not None else test
            submit(message["id"], dict(task, test=side_test), 0)
        elif op == "cancel":
            with lock:
                future = futures.pop(message["id"], None)
            if future is not None:
                future.cancel()
                say({"id": message["id"], "verdict": "cancelled"})
    # whittle is done: nothing still running is wanted.
    with lock:
        left = list(futures.values())
        futures.clear()
    if left:
        client.cancel(left)
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
