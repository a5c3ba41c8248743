//! A generator that is a process speaking the line protocol of `whittle generate` (see
//! docs/generator-protocol.md): it asks for each decision on its stdout, one request a line,
//! and reads the answer on its stdin. Each run is a fresh process; one that crashes, hangs or
//! prints something that is not a request ends the run with a message saying so. A generator
//! that ends a run with `done again` stays for the next run (told `again`), which saves a
//! process start per candidate.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use whittle::generator::{Generator, Halt, Source};

pub struct ProcessGenerator {
    /// The command, run with `sh -c`.
    pub command: String,
    /// How long a run may take.
    pub timeout: Duration,
    /// A generator that said `done again`, waiting for the next run.
    idle: Option<Run>,
}

impl ProcessGenerator {
    pub fn new(command: String, timeout: Duration) -> ProcessGenerator {
        ProcessGenerator {
            command,
            timeout,
            idle: None,
        }
    }

    /// The waiting generator told to run again, or a new one.
    fn next_run(&mut self) -> Result<Run, Halt> {
        if let Some(mut run) = self.idle.take() {
            if run.answer("again").is_ok() {
                run.deadline = Instant::now() + self.timeout;
                return Ok(run);
            }
        }
        Run::start(self)
    }
}

/// One running generator.
struct Run {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    deadline: Instant,
}

impl Run {
    fn start(g: &ProcessGenerator) -> Result<Run, Halt> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&g.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| Halt(format!("cannot run the generator `{}`: {e}", g.command)))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Ok(Run {
            child,
            stdin,
            lines,
            deadline: Instant::now() + g.timeout,
        })
    }

    /// The next request, or why there is none.
    fn request(&mut self) -> Result<String, Halt> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Halt(format!(
                "the generator sent no request for {:.0} s (it may be stuck; see --gen-timeout)",
                left.as_secs_f64().max(1.0)
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(self.exited()),
        }
    }

    /// Why the generator stopped talking: its exit status and what it printed on stderr.
    fn exited(&mut self) -> Halt {
        let status = self.child.wait().ok();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        let err = err.trim();
        Halt(format!(
            "the generator exited ({}) before `done`{}",
            status.map_or("status unknown".into(), |s| s.to_string()),
            if err.is_empty() {
                String::new()
            } else {
                format!("; it said: {}", err.chars().take(800).collect::<String>())
            }
        ))
    }

    fn answer(&mut self, text: &str) -> Result<(), Halt> {
        writeln!(self.stdin, "{text}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| self.exited())
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group of our own child.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// Words of a request, and a message for one that is not.
fn parse(line: &str, want: usize) -> Result<Vec<&str>, Halt> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() != want {
        return Err(garbage(line));
    }
    Ok(words)
}

fn garbage(line: &str) -> Halt {
    let shown: String = line.chars().take(120).collect();
    Halt(format!(
        "the generator sent `{shown}`, which is not a request of the protocol (int, pick, fresh, loop, iter, maybe, part, end, out, done; see docs/generator-protocol.md)"
    ))
}

fn number<T: std::str::FromStr>(line: &str, word: &str) -> Result<T, Halt> {
    word.parse().map_err(|_| garbage(line))
}

impl ProcessGenerator {
    /// The seed the generator names in its `hello` line, if it does.
    pub fn default_seed(&self) -> Result<Option<u64>, Halt> {
        let mut run = Run::start(self)?;
        let line = run.request()?;
        let _ = run.answer("halt");
        let words: Vec<&str> = line.split_whitespace().collect();
        Ok(match words.as_slice() {
            ["hello", seed] => Some(number(&line, seed)?),
            _ => None,
        })
    }
}

impl Generator for ProcessGenerator {
    fn run(&mut self, source: &mut Source) -> Result<String, Halt> {
        let mut run = self.next_run()?;
        let mut output = String::new();
        loop {
            let line = run.request()?;
            let verb = line.split_whitespace().next().unwrap_or("");
            let reply = match verb {
                "hello" => "ok".to_string(),
                "int" => {
                    let w = parse(&line, 4)?;
                    let (lo, hi) = (number(&line, w[2])?, number(&line, w[3])?);
                    decide(&mut run, source.int(w[1], lo, hi))?.to_string()
                }
                "pick" => match line.splitn(4, ' ').collect::<Vec<_>>().as_slice() {
                    // `pick LABEL N ["name", ...]`: a pick from named things.
                    [_, label, n, keys] => {
                        let keys: Vec<String> =
                            serde_json::from_str(keys).map_err(|_| garbage(&line))?;
                        if keys.len() != number::<usize>(&line, n)? {
                            return Err(garbage(&line));
                        }
                        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                        decide(&mut run, source.pick_named(label, &keys))?.to_string()
                    }
                    _ => {
                        let w = parse(&line, 3)?;
                        decide(&mut run, source.pick(w[1], number(&line, w[2])?))?.to_string()
                    }
                },
                "fresh" => {
                    let w = parse(&line, 2)?;
                    decide(&mut run, source.fresh(w[1]))?.to_string()
                }
                "loop" => {
                    let w = parse(&line, 4)?;
                    let (min, max) = (number(&line, w[2])?, number(&line, w[3])?);
                    decide(&mut run, source.begin_loop(w[1], min, max))?.to_string()
                }
                "maybe" => {
                    let w = parse(&line, 2)?;
                    (decide(&mut run, source.maybe(w[1]))? as u8).to_string()
                }
                "part" => {
                    let w = parse(&line, 2)?;
                    (decide(&mut run, source.part(w[1]))? as u8).to_string()
                }
                "iter" => {
                    parse(&line, 1)?;
                    decide(&mut run, source.iteration())?;
                    "ok".into()
                }
                "end" => {
                    parse(&line, 1)?;
                    decide(&mut run, source.end())?;
                    "ok".into()
                }
                "out" => {
                    let json = line["out".len()..].trim();
                    let text: String = serde_json::from_str(json).map_err(|_| garbage(&line))?;
                    output.push_str(&text);
                    "ok".into()
                }
                "done" => {
                    if line.split_whitespace().eq(["done", "again"]) {
                        self.idle = Some(run);
                    }
                    return Ok(output);
                }
                _ => return Err(garbage(&line)),
            };
            run.answer(&reply)?;
        }
    }
}

/// A decision, or `halt` told to the generator and the run ended.
fn decide<T>(run: &mut Run, d: Result<T, Halt>) -> Result<T, Halt> {
    if d.is_err() {
        let _ = run.answer("halt");
    }
    d
}

use std::os::unix::process::CommandExt;
