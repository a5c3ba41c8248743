//! `whittle reduce --endpoint URL --compiler ID`: each query is a compile on a Compiler
//! Explorer-compatible endpoint (the public one, a self-hosted one, `whittle serve`) instead
//! of a local test, for compilers this machine does not have.
//!
//! Several `--endpoint`s make a pool: a query goes to the endpoint with the fewest compiles
//! in flight (at most k each) that is neither backed off nor over its rate. An endpoint that
//! answers 429 (or 503 with Retry-After) waits as told; one that fails (no answer, 5xx) is
//! backed off, doubling up to a minute; the query goes elsewhere. Requests name Whittle in
//! their User-Agent, and each endpoint gets at most `--rate` compiles a second (Compiler
//! Explorer allows 12,000 POSTs per 5 minutes per address: 40 a second).

use crate::runner::{done, Job, Pool, Runner, TestOutcome};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use whittle::recipe::answers::{Next, Refusal, Step};
use whittle::recipe::{self, Recipe};

const USER_AGENT: &str = concat!(
    "whittle/",
    env!("CARGO_PKG_VERSION"),
    " (program reducer; reduce --endpoint)"
);
/// The longest back-off of a failing endpoint, and of one rate-limited without Retry-After.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Failed attempts per query, over all endpoints, before it counts as failed (a 429 is no
/// failure: the query waits as told).
const FAILURES_PER_ENDPOINT: usize = 4;

#[derive(clap::Args, Clone, Default)]
pub struct EndpointArgs {
    /// Compile each query on this Compiler Explorer-compatible endpoint (https://godbolt.org,
    /// a `whittle serve`) instead of running a local test; repeat for a pool. The property is
    /// --match REGEX over the compile's output (and the run's, with --execute) and --exit N
    /// on the compiler's exit code; -j is the compiles in flight per endpoint (default 1).
    #[arg(long = "endpoint", value_name = "URL")]
    pub endpoints: Vec<String>,
    /// With --endpoint: the endpoint's compiler id (as in its /api/compilers), e.g. cg152.
    #[arg(long, value_name = "ID", requires = "endpoints")]
    pub compiler: Option<String>,
    /// With --endpoint: the compiler's flags, e.g. --flags='-O2 -Wall'.
    #[arg(
        long,
        value_name = "FLAGS",
        allow_hyphen_values = true,
        requires = "endpoints"
    )]
    pub flags: Option<String>,
    /// With --endpoint: also run the compiled program (its output joins the compile's).
    #[arg(long, requires = "endpoints")]
    pub execute: bool,
    /// With --endpoint: the most compiles a second sent to each endpoint.
    #[arg(
        long,
        value_name = "PER_SECOND",
        default_value_t = 10.0,
        requires = "endpoints"
    )]
    pub rate: f64,
}

/// What a compile must show to be interesting.
#[derive(Clone)]
pub struct Check {
    regex: regex::Regex,
    exit: Option<i32>,
    /// A template's recipe (a crash, a diagnostic), which judges instead of the two above.
    recipe: Option<Recipe>,
    /// A pair's: the seed is interesting when the output does *not* match.
    pair: bool,
    /// A witness's (a seed's): interesting when the compile succeeds and the bug does not
    /// show.
    without: bool,
}

impl Check {
    /// `--match` and `--exit`, or a template's recipe.
    pub fn new(
        pattern: Option<&str>,
        exit: Option<i32>,
        recipe: Option<Recipe>,
    ) -> Result<Check, String> {
        if pattern.is_none() && exit.is_none() && recipe.is_none() {
            return Err("with --endpoint, say what is interesting: --match REGEX (over the compiler's output) and/or --exit N".into());
        }
        let regex = regex::Regex::new(pattern.unwrap_or(""))
            .map_err(|e| format!("--match is not a valid regex: {e}"))?;
        Ok(Check {
            regex,
            exit,
            recipe,
            pair: false,
            without: false,
        })
    }

    /// The check of a witness: the compile succeeds and this check's bug does not show.
    pub fn without(&self) -> Check {
        Check {
            without: true,
            ..self.clone()
        }
    }

    /// A compile's answer judged: the outcome, and the compiler's output.
    fn judged(
        &self,
        answer: Result<(i32, String), TestOutcome>,
        side: whittle::Side,
    ) -> (TestOutcome, String) {
        match answer {
            Ok((code, output)) if self.interesting(code, &output, side) => {
                (TestOutcome::Interesting, output)
            }
            Ok((_, output)) => (TestOutcome::Boring, output),
            Err(outcome) => (outcome, String::new()),
        }
    }

    fn interesting(&self, code: i32, output: &str, side: whittle::Side) -> bool {
        let shown = match &self.recipe {
            Some(r) => r.judge(code, output).unwrap_or(false),
            None => self.exit.is_none_or(|e| e == code) && self.regex.is_match(output),
        };
        if self.without {
            return code == 0 && !shown;
        }
        shown != (self.pair && side == whittle::Side::Seed)
    }

    /// What decides its verdicts, for the verdict cache's key.
    pub fn key(&self) -> String {
        format!(
            "{:?} {:?} {:?} {} {}",
            self.regex.as_str(),
            self.exit,
            self.recipe,
            self.pair,
            self.without
        )
    }
}

/// A test that is a compile on the endpoints (a [`crate::runner::Property::Endpoint`]), for
/// the commands that run their tests one by one (the witness search).
pub struct Remote {
    e: Endpoints,
    request: Request,
    check: Check,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Remote({} on {} endpoints)",
            self.request.compiler,
            self.e.pool.len()
        )
    }
}

impl Remote {
    /// The compile of `text`, judged: its outcome and the compiler's output, where the file
    /// is called `name` (Compiler Explorer calls it `<source>`), as a local compile's would.
    pub fn test(&self, name: &str, text: &str, cancel: &AtomicBool) -> (TestOutcome, String) {
        let job = query(name, text, false);
        let answer = compile(&self.e, &self.request, &job, cancel);
        let (outcome, output) = self.check.judged(answer, job.side);
        (outcome, output.replace("<source>:", &format!("{name}:")))
    }

    /// What decides its verdicts, for the verdict cache's key.
    pub fn key(&self) -> String {
        let pool = &self.e.pool;
        let bases: Vec<String> = (0..pool.len()).map(|i| pool.base(i)).collect();
        format!(
            "{} {} {} {} {}",
            bases.join(","),
            self.request.compiler,
            self.request.flags,
            self.request.execute,
            self.check.key()
        )
    }
}

impl EndpointArgs {
    /// The runner and the number of queries in flight when queries go to endpoints (None:
    /// they are local tests). `jobs` (-j) is k per endpoint, 1 unless given.
    pub fn runner_for(
        &self,
        property: &crate::commands::args::PropertyArgs,
        jobs: Option<usize>,
        timeout: Duration,
    ) -> Result<Option<(Runner, usize)>, String> {
        let local = property.test.is_some() || property.cmd.is_some();
        let (pattern, exit) = (property.pattern.as_deref(), property.exit);
        self.runner_with(pattern, exit, local, false, jobs, timeout)
    }

    /// Tests that are compiles on the endpoints, each judged by its check, sharing one pool
    /// (`jobs` in flight on each endpoint).
    pub fn remotes(
        &self,
        checks: Vec<Check>,
        jobs: usize,
        timeout: Duration,
    ) -> Result<Vec<Arc<Remote>>, String> {
        let (e, request) = self.connect(jobs, timeout)?;
        Ok(checks
            .into_iter()
            .map(|check| {
                Arc::new(Remote {
                    e: e.clone(),
                    request: request.clone(),
                    check,
                })
            })
            .collect())
    }

    /// The runner for a template's `recipe` made by [`EndpointArgs::calibrate`].
    pub fn runner_for_recipe(
        &self,
        recipe: Recipe,
        jobs: Option<usize>,
        timeout: Duration,
    ) -> Result<(Runner, usize), String> {
        let k = jobs.unwrap_or(1).max(1);
        let check = Check::new(None, None, Some(recipe))?;
        Ok((self.runner(check, k, timeout)?, k * self.endpoints.len()))
    }

    /// A template's recipe from the original's compile on the first endpoint: the crash's
    /// signature (`crash`), or the message that contains `diagnostic`.
    pub fn calibrate(
        &self,
        crash: bool,
        diagnostic: Option<(&str, bool)>,
        text: &str,
        timeout: Duration,
    ) -> Result<Recipe, String> {
        let (e, request) = self.connect(1, timeout)?;
        let job = query("", text, true);
        let (code, output) =
            compile(&e, &request, &job, &AtomicBool::new(false)).map_err(original_failed)?;
        let what = format!("{} {}", request.compiler, request.flags);
        let last: Vec<&str> = output.lines().filter(|l| !l.is_empty()).take(12).collect();
        let recipe = match diagnostic {
            Some((pick, strict)) => Recipe::diagnostic(what.trim(), pick, strict, &output)
                .ok_or_else(|| format!("no line of the original's compile output contains \"{pick}\"; pick a few words of one of these:\n{}", last.join("\n"))),
            None if crash => Recipe::crash(what.trim(), &output, code).ok_or_else(|| format!("the original does not crash {what}: it exited {code} and printed no internal compiler error, assertion, panic or stack dump:\n{}", last.join("\n"))),
            None => Err("a template over an endpoint is --crash or --diagnostic TEXT".into()),
        }?;
        Ok(recipe)
    }

    /// As `runner_for`, from the property's parts: `--match` and `--exit`, whether a local
    /// test was given too (refused), and whether it is a pair's (whose seed must *not* match).
    pub fn runner_with(
        &self,
        pattern: Option<&str>,
        exit: Option<i32>,
        local_test: bool,
        pair: bool,
        jobs: Option<usize>,
        timeout: Duration,
    ) -> Result<Option<(Runner, usize)>, String> {
        if self.endpoints.is_empty() {
            return Ok(None);
        }
        if local_test {
            return Err("with --endpoint, the property is --match REGEX and/or --exit N on the compile (no --test or --cmd)".into());
        }
        let k = jobs.unwrap_or(1).max(1);
        let check = Check {
            pair,
            ..Check::new(pattern, exit, None)?
        };
        let runner = self.runner(check, k, timeout)?;
        Ok(Some((runner, k * self.endpoints.len())))
    }

    /// The runner whose tests are compiles on the endpoints; `jobs` is k per endpoint.
    fn runner(&self, check: Check, jobs: usize, timeout: Duration) -> Result<Runner, String> {
        let (e, request) = self.connect(jobs, timeout)?;
        let threads = jobs.max(1) * e.pool.len();
        Ok(Pool::with(threads, move |job, cancel, _| {
            let answer = compile(&e, &request, job, &cancel);
            let (outcome, output) = check.judged(answer, job.side);
            done(job, outcome, &output)
        }))
    }

    /// The endpoints (`jobs` in flight on each) and the request `--compiler` and `--flags` say.
    fn connect(&self, jobs: usize, timeout: Duration) -> Result<(Endpoints, Request), String> {
        let compiler = self.compiler.clone().ok_or(
            "--endpoint needs --compiler ID (the endpoint's /api/compilers/LANG lists them)",
        )?;
        let e = self.endpoints(jobs, timeout)?;
        let request = Request {
            compiler,
            flags: self.flags.clone().unwrap_or_default(),
            execute: self.execute,
        };
        Ok((e, request))
    }

    /// The endpoints' pool with `jobs` in flight on each, and the HTTP agent.
    fn endpoints(&self, jobs: usize, timeout: Duration) -> Result<Endpoints, String> {
        if !self.rate.is_finite() || self.rate <= 0.0 {
            return Err("--rate must be above 0 (compiles a second per endpoint)".into());
        }
        let endpoints = self
            .endpoints
            .iter()
            .map(|url| endpoint_base(url))
            .collect::<Result<Vec<_>, _>>()?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .user_agent(USER_AGENT)
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build()
            .into();
        let k = jobs.max(1);
        let pool = Arc::new(EndpointPool::new(
            endpoints,
            k,
            Duration::from_secs_f64(1.0 / self.rate),
        ));
        Ok(Endpoints { pool, agent })
    }
}

/// An endpoint's answer as a wrong-code recipe reads it: the compiler's exit status and the
/// program's run, when it ran.
fn answer_of(json: &Value) -> recipe::answers::Answer {
    let run = &json["execResult"];
    let ran = run.is_object() && run["didExecute"].as_bool() == Some(true);
    recipe::answers::Answer {
        code: json["code"].as_i64().unwrap_or(-1) as i32,
        run: ran.then(|| recipe::answers::Run {
            code: run["code"].as_i64().unwrap_or(-1) as i32,
            stdout: lines_of(&run["stdout"]),
            stderr: lines_of(&run["stderr"]),
        }),
    }
}

/// Wrong code over the endpoints (`--wrong-code ID_A ID_B --endpoint ...`): two builds whose
/// programs' runs disagree; with the guard, a build with the warnings that flag undefined
/// behaviour made errors must succeed and a sanitized build's run must print what the
/// reference build's run printed, with no sanitizer report. The compiles are made in the
/// order the shared judge asks for them (`whittle::recipe::answers`), as the page makes them.
#[derive(Clone)]
pub struct WrongCode {
    /// The compiles of `Step::ALL`: the two builds, then the guard's (when there is one).
    steps: Vec<Request>,
    reference: Option<recipe::Build>,
}

impl WrongCode {
    /// Whether `job`'s text shows the wrong code and passes the guard.
    fn judge(&self, e: &Endpoints, job: &Job, cancel: &AtomicBool) -> Result<bool, TestOutcome> {
        let mut answers = Vec::new();
        loop {
            match recipe::answers::next(&answers, self.reference) {
                Next::Verdict(v) => return Ok(v),
                Next::Need(step) => {
                    let json = answer(e, &self.steps[step as usize], job, cancel)?;
                    answers.push(answer_of(&json));
                }
            }
        }
    }
}

/// The endpoints' pool and the HTTP agent every compile goes through.
#[derive(Clone)]
struct Endpoints {
    pool: Arc<EndpointPool>,
    agent: ureq::Agent,
}

/// A query of `text` (the original's, or a candidate's).
fn query(name: &str, text: &str, original: bool) -> Job {
    Job {
        id: 0,
        side: whittle::Side::Variant,
        original,
        file: (name.to_string(), text.to_string()),
    }
}

/// Why the original's compile gave no answer, for the calibrations' messages.
fn original_failed(outcome: TestOutcome) -> String {
    match outcome {
        TestOutcome::Failed(why) => format!("the original's compile: {why}"),
        _ => "the original's compile was called off".to_string(),
    }
}

impl EndpointArgs {
    /// Wrong code over the endpoints, calibrated on the original: `a` and `b` are a compiler
    /// id and its flags each (`cg152 -O2`), `guard` the guard's compiler id and flags.
    pub fn calibrate_wrong_code(
        &self,
        a: &str,
        b: &str,
        guard: Option<&str>,
        text: &str,
        timeout: Duration,
    ) -> Result<WrongCode, String> {
        let e = self.endpoints(1, timeout)?;
        let build = |spec: &str, step: Step| {
            let mut words = spec.split_whitespace();
            let compiler = words.next().unwrap_or_default().to_string();
            let mut flags: Vec<String> = words.map(str::to_string).collect();
            flags.extend(step.extra_flags().split_whitespace().map(str::to_string));
            Request {
                compiler,
                flags: flags.join(" "),
                execute: step.runs(),
            }
        };
        let mut steps = vec![build(a, Step::A), build(b, Step::B)];
        if let Some(g) = guard {
            steps.extend([build(g, Step::Warnings), build(g, Step::Sanitized)]);
        }
        let job = query("", text, true);
        let cancel = AtomicBool::new(false);
        let mut jsons = Vec::new();
        for step in &steps {
            jsons.push(answer(&e, step, &job, &cancel).map_err(original_failed)?);
        }
        let answers: Vec<_> = jsons.iter().map(answer_of).collect();
        let reference = recipe::answers::calibrate(&answers, guard.is_some()).map_err(|r| {
            let why = r.describe(a, b, guard.unwrap_or(""), "reduce with --no-guard");
            // The guard's complaint, from the step that made it.
            let shown = match r {
                Refusal::Warnings => Some(&jsons[2]),
                Refusal::Sanitized => Some(&jsons[3]),
                _ => None,
            };
            match shown {
                Some(json) => format!("{why}:\n{}", output_of(json).1.trim()),
                None => why,
            }
        })?;
        Ok(WrongCode { steps, reference })
    }

    /// The runner of a wrong-code plan (see [`EndpointArgs::calibrate_wrong_code`]).
    pub fn runner_for_wrong_code(
        &self,
        plan: WrongCode,
        jobs: Option<usize>,
        timeout: Duration,
    ) -> Result<(Runner, usize), String> {
        let k = jobs.unwrap_or(1).max(1);
        let e = self.endpoints(k, timeout)?;
        let threads = k * e.pool.len();
        let runner = Pool::with(threads, move |job, cancel, _| {
            let outcome = match plan.judge(&e, job, &cancel) {
                Ok(true) => TestOutcome::Interesting,
                Ok(false) => TestOutcome::Boring,
                Err(o) => o,
            };
            done(job, outcome, "")
        });
        Ok((runner, threads))
    }
}

/// `URL` without its trailing slash; only http and https.
fn endpoint_base(url: &str) -> Result<String, String> {
    let url = url.trim().trim_end_matches('/');
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!(
            "--endpoint {url}: give the endpoint's address, e.g. https://godbolt.org or http://127.0.0.1:8080"
        ));
    }
    Ok(url.to_string())
}

#[derive(Clone)]
struct Request {
    compiler: String,
    flags: String,
    execute: bool,
}

/// One query: compiles on the pool's endpoints until one answers (or it has tried enough):
/// the compiler's exit status and output, or why there is none.
fn compile(
    e: &Endpoints,
    request: &Request,
    job: &Job,
    cancel: &AtomicBool,
) -> Result<(i32, String), TestOutcome> {
    answer(e, request, job, cancel).map(|json| output_of(&json))
}

/// As [`compile`], the endpoint's whole answer.
fn answer(
    e: &Endpoints,
    request: &Request,
    job: &Job,
    cancel: &AtomicBool,
) -> Result<Value, TestOutcome> {
    let (pool, agent) = (&e.pool, &e.agent);
    let body = json!({
        "source": job.file.1,
        "options": {
            "userArguments": request.flags,
            "filters": {"execute": request.execute, "binary": false, "labels": true, "directives": true,
                        "commentOnly": true, "demangle": true, "intel": true},
            "compilerOptions": {"executorRequest": false},
            "tools": [],
            "libraries": [],
        },
        "allowStoreCodeDebug": false,
    })
    .to_string();
    let mut failures = Vec::new();
    while failures.len() < FAILURES_PER_ENDPOINT * pool.len() {
        let Some(i) = pool.acquire(cancel) else {
            return Err(TestOutcome::Cancelled);
        };
        let base = pool.base(i);
        let answer = post(
            agent,
            &format!("{base}/api/compiler/{}/compile", request.compiler),
            &body,
        );
        match answer {
            Answer::Compiled(json) => {
                pool.release(i, Health::Fine);
                if cancel.load(Ordering::SeqCst) {
                    return Err(TestOutcome::Cancelled); // (as a local test killed late)
                }
                return Ok(json);
            }
            Answer::Busy(wait) => pool.release(i, Health::Busy(wait)),
            Answer::Failed(msg) => {
                failures.push(format!("{base}: {msg}"));
                pool.release(i, Health::Failing);
            }
            Answer::Refused(msg) => {
                // A 4xx other than 429: this request is wrong (say, an unknown compiler id),
                // wherever it goes.
                pool.release(i, Health::Fine);
                return Err(TestOutcome::Failed(format!(
                    "{base} refused the compile: {msg}"
                )));
            }
        }
    }
    let last = failures.pop().unwrap_or_default();
    Err(TestOutcome::Failed(format!(
        "no endpoint compiled the query ({} failures; the last: {last})",
        failures.len() + 1
    )))
}

enum Answer {
    Compiled(Value),
    /// Rate limited: try again after this long (Retry-After), or after a back-off.
    Busy(Option<Duration>),
    Failed(String),
    Refused(String),
}

fn post(agent: &ureq::Agent, url: &str, body: &str) -> Answer {
    let response = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .send(body);
    let mut response = match response {
        Ok(r) => r,
        Err(e) => return Answer::Failed(format!("no answer ({e})")),
    };
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|s| Duration::from_secs_f64(s.clamp(0.0, 3600.0)));
    if status == 429 || (status == 503 && retry_after.is_some()) {
        return Answer::Busy(retry_after);
    }
    let text = match response.body_mut().read_to_string() {
        Ok(t) => t,
        Err(e) => return Answer::Failed(format!("the answer could not be read ({e})")),
    };
    let head = || text.chars().take(200).collect::<String>();
    match status {
        200..=299 => match serde_json::from_str::<Value>(&text) {
            Ok(json) if json["code"].is_i64() => Answer::Compiled(json),
            _ => Answer::Failed(format!(
                "the answer is not a Compiler Explorer compile result (no numeric \"code\"): {}",
                head()
            )),
        },
        400..=499 => Answer::Refused(format!("HTTP {status}: {}", head())),
        _ => Answer::Failed(format!("HTTP {status}: {}", head())),
    }
}

/// The compiler's exit code, and its output: stdout and stderr, then the run's (with --execute).
/// A stream of an answer: a string, or Compiler Explorer's lines (`[{text}]`), as one text.
fn lines_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|l| l["text"].as_str().or(l.as_str()).unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn output_of(json: &Value) -> (i32, String) {
    let lines = lines_of;
    let mut output = format!("{}\n{}", lines(&json["stdout"]), lines(&json["stderr"]));
    let run = &json["execResult"];
    if run.is_object() && run["didExecute"].as_bool().unwrap_or(true) {
        output.push_str(&format!(
            "\n{}\n{}",
            lines(&run["stdout"]),
            lines(&run["stderr"])
        ));
    }
    (json["code"].as_i64().unwrap_or(-1) as i32, output)
}

// --- the pool ------------------------------------------------------------------------------

enum Health {
    Fine,
    Busy(Option<Duration>),
    Failing,
}

struct Endpoint {
    base: String,
    in_flight: usize,
    /// Nothing is sent before this (a back-off or Retry-After).
    not_before: Instant,
    /// The rate cap: the next compile is sent no earlier than this.
    next_slot: Instant,
    /// The back-off the next failure or 429 without Retry-After gets.
    backoff: Duration,
}

struct EndpointPool {
    endpoints: Mutex<Vec<Endpoint>>,
    changed: Condvar,
    k: usize,
    interval: Duration,
}

impl EndpointPool {
    fn new(bases: Vec<String>, k: usize, interval: Duration) -> EndpointPool {
        let now = Instant::now();
        let endpoints = bases
            .into_iter()
            .map(|base| Endpoint {
                base,
                in_flight: 0,
                not_before: now,
                next_slot: now,
                backoff: Duration::from_secs(1),
            })
            .collect();
        EndpointPool {
            endpoints: Mutex::new(endpoints),
            changed: Condvar::new(),
            k,
            interval,
        }
    }

    fn len(&self) -> usize {
        self.endpoints.lock().unwrap().len()
    }

    fn base(&self, i: usize) -> String {
        self.endpoints.lock().unwrap()[i].base.clone()
    }

    /// An endpoint to send a compile to, once one may take it (None: cancelled).
    fn acquire(&self, cancel: &AtomicBool) -> Option<usize> {
        let mut endpoints = self.endpoints.lock().unwrap();
        loop {
            if cancel.load(Ordering::SeqCst) || crate::stop::exiting() {
                return None;
            }
            let now = Instant::now();
            let ready = endpoints
                .iter()
                .enumerate()
                .filter(|(_, e)| e.in_flight < self.k && e.not_before <= now && e.next_slot <= now)
                .min_by_key(|(_, e)| (e.in_flight, e.next_slot))
                .map(|(i, _)| i);
            if let Some(i) = ready {
                let e = &mut endpoints[i];
                e.in_flight += 1;
                e.next_slot = now + self.interval;
                return Some(i);
            }
            // Wait for a free slot, or for the soonest endpoint to be ready (at most 100 ms:
            // the cancel flag is looked at again).
            let soonest = endpoints
                .iter()
                .filter(|e| e.in_flight < self.k)
                .map(|e| e.not_before.max(e.next_slot))
                .min();
            let wait = soonest
                .map(|t| t.saturating_duration_since(now))
                .unwrap_or(Duration::from_millis(100))
                .clamp(Duration::from_millis(1), Duration::from_millis(100));
            endpoints = self.changed.wait_timeout(endpoints, wait).unwrap().0;
        }
    }

    /// Endpoint `i`'s compile is over; `health` says how it went.
    fn release(&self, i: usize, health: Health) {
        let mut endpoints = self.endpoints.lock().unwrap();
        let e = &mut endpoints[i];
        e.in_flight -= 1;
        match health {
            Health::Fine => e.backoff = Duration::from_secs(1),
            Health::Busy(wait) => {
                let wait = wait.unwrap_or(e.backoff);
                e.backoff = (e.backoff * 2).min(MAX_BACKOFF);
                e.not_before = e.not_before.max(Instant::now() + wait);
            }
            Health::Failing => {
                e.not_before = Instant::now() + e.backoff;
                e.backoff = (e.backoff * 2).min(MAX_BACKOFF);
            }
        }
        self.changed.notify_all();
    }
}
