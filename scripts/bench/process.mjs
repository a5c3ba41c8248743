// Running a tool as a child process for the bench: its own process group, output to a log file,
// whole-process wall time, and a time limit after which the whole group is killed.

import { spawn } from 'node:child_process';
import { openSync, closeSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** Process groups still running, so Ctrl-C on the bench stops them too. */
const running = new Set();

/** Kills the whole process group of `pid`: SIGTERM first, SIGKILL after a grace period. */
function killGroup(pid, graceMs = 5000) {
  const signal = (sig) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* already gone */
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), graceMs).unref();
}

/** What to do before a stopped bench exits: print and save the figures it has. */
const onStop = [];

/** Runs `fn` when the bench is stopped (Ctrl-C or SIGTERM), after its tools are killed. */
export function whenStopped(fn) {
  onStop.push(fn);
}

for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(sig, () => {
    for (const pid of running) killGroup(pid, 0);
    process.stderr.write(`\nbench: stopped (${sig})\n`);
    for (const fn of onStop) {
      try {
        fn(sig);
      } catch (e) {
        process.stderr.write(`bench: ${e.message}\n`);
      }
    }
    process.exit(code);
  });
}

/**
 * Runs `cmd args` in `cwd`, stdout and stderr appended to `logPath`, for at most `limitSeconds`.
 * Resolves to { code, signal, timedOut, wallSeconds, snapshots }; rejects only if the command
 * cannot start. With `snapshot: { file, every, into }` it copies `file` (a reducer's best so
 * far, which all three tools keep in place) into the folder `into` every `every` seconds:
 * snapshots are [{ seconds, path }].
 */
export function runWithLimit(cmd, args, { cwd, logPath, limitSeconds, env = process.env, snapshot = null }) {
  return new Promise((resolve, reject) => {
    const log = openSync(logPath, 'a');
    const started = performance.now();
    const snapshots = [];
    let ticker = null;
    if (snapshot) {
      mkdirSync(snapshot.into, { recursive: true });
      let ticks = 0;
      const take = () => {
        const seconds = ++ticks * snapshot.every;
        const path = join(snapshot.into, `${seconds}s`);
        try {
          if (!existsSync(snapshot.file)) return;
          // Read whole, not copied: libuv's copy spins for ever on a file that a reducer
          // truncates while it is copied (C-Vise rewrites its input in place).
          writeFileSync(path, readFileSync(snapshot.file));
          snapshots.push({ seconds, path });
        } catch {
          // Caught mid-rename: the next snapshot has it.
        }
      };
      ticker = setInterval(take, snapshot.every * 1000);
    }
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, limitSeconds * 1000);
    if (child.pid) running.add(child.pid);
    child.on('error', (err) => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      running.delete(child.pid);
      reject(new Error(`cannot run ${cmd}: ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      running.delete(child.pid);
      // Tests the tool left behind in the same group must not run on into the next measurement.
      if (timedOut) killGroup(child.pid, 0);
      resolve({ code, signal, timedOut, wallSeconds: (performance.now() - started) / 1000, snapshots });
    });
  });
}
