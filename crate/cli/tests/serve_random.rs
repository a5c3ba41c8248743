//! `whittle serve`'s compile API under random JSON: requests shaped like Compiler Explorer's
//! in parts, random elsewhere, each answered with a JSON verdict and none fatal.
//!
//! It needs gcc on PATH (scripts/setup.sh installs it with the rest).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;

use support::*;

/// xorshift64*: a small deterministic generator for the random-input test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "source",
    "options",
    "lang",
    "userArguments",
    "filters",
    "execute",
    "binary",
    "intel",
    "executeParameters",
    "args",
    "stdin",
    "compilerOptions",
    "tools",
    "libraries",
    "",
    "x",
];

const PIECES: &[&str] = &[
    "int main(void){return 0;}",
    "int x;",
    "-O2",
    "-Wall",
    "-o",
    "/etc/passwd",
    "-fplugin=x.so",
    "@f",
    "-I..",
    "{",
    "}",
    "\"",
    "'",
    "\\",
    "\0",
    "\n",
    " ",
    "é",
    "😀",
    "\u{202e}",
    "a",
    "0",
    "-x",
    "c++",
    "--",
    "$(id)",
    ";",
    "#include </dev/zero>",
    "%s%n",
    "\u{fffd}",
];

const SAFE_FLAGS: &[&str] = &[
    "-O0",
    "-O2",
    "-Wall",
    "-w",
    "-std=c99",
    "-g",
    "-DX=1",
    "-fsyntax-only",
];

fn random_string(rng: &mut Rng) -> String {
    let n = match rng.below(40) {
        0 => 20_000 + rng.below(60_000), // sometimes over the 256 KiB limit once escaped
        1..=4 => rng.below(2000),
        _ => rng.below(12),
    };
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(rng.pick(PIECES));
    }
    s
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth > 4 { 6 } else { 8 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(match rng.below(4) {
            0 => rng.next() as i64,
            1 => -(rng.below(10) as i64),
            _ => rng.below(100) as i64,
        }),
        3 => json!([1e308, -0.0, 0.5, 1e-300, f64::MAX][rng.below(5)]),
        4 | 5 => Value::String(random_string(rng)),
        6 => Value::Array(
            (0..rng.below(5))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => random_object(rng, depth + 1),
    }
}

fn random_object(rng: &mut Rng, depth: usize) -> Value {
    let mut map = serde_json::Map::new();
    for _ in 0..rng.below(6) {
        let key = if rng.below(5) == 0 {
            random_string(rng)
        } else {
            rng.pick(KEYS).to_string()
        };
        map.insert(key, random_value(rng, depth));
    }
    Value::Object(map)
}

/// A body shaped like Compiler Explorer's request in parts, random elsewhere.
fn random_request(rng: &mut Rng) -> Vec<u8> {
    let value = match rng.below(6) {
        0 => random_value(rng, 0),
        1 => random_object(rng, 0),
        _ => {
            // Each part well-formed three times in four, random otherwise.
            let typed = |rng: &mut Rng| rng.below(4) != 0;
            let flags = if typed(rng) {
                let n = rng.below(4);
                Value::String(
                    (0..n)
                        .map(|_| rng.pick(SAFE_FLAGS))
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            } else if rng.below(2) == 0 {
                Value::String(random_string(rng))
            } else {
                random_value(rng, 3)
            };
            let filters = if typed(rng) {
                json!({"execute": rng.below(2) == 0, "binary": rng.below(4) == 0, "intel": rng.below(2) == 0})
            } else {
                random_object(rng, 2)
            };
            let mut options = json!({"userArguments": flags, "filters": filters});
            if rng.below(2) == 0 {
                options["executeParameters"] = if typed(rng) {
                    let args: Vec<String> = (0..rng.below(4)).map(|_| random_string(rng)).collect();
                    json!({"args": args, "stdin": random_string(rng)})
                } else {
                    json!({"args": random_value(rng, 3), "stdin": random_value(rng, 3)})
                };
            }
            if rng.below(3) == 0 {
                options["compilerOptions"] = random_value(rng, 2);
            }
            let source = match rng.below(4) {
                0 => random_value(rng, 2),
                1 => Value::String(format!(
                    "#include <stdio.h>\nint main(int c, char **v) {{ puts({:?}); return c; }}\n",
                    random_string(rng)
                )),
                _ => Value::String(random_string(rng)),
            };
            let mut request = json!({"source": source, "options": options});
            if rng.below(2) == 0 {
                request["lang"] = if typed(rng) {
                    json!("c")
                } else {
                    random_value(rng, 4)
                };
            }
            request
        }
    };
    let mut body = serde_json::to_vec(&value).unwrap();
    match rng.below(12) {
        0 => body.truncate(rng.below(body.len() + 1)), // broken JSON
        1 => {
            // Deep nesting: past serde_json's recursion limit, and far past it.
            let depth = [100, 200, 5_000, 100_000][rng.below(4)];
            body = "[".repeat(depth).into_bytes();
            body.extend("]".repeat(depth).into_bytes());
        }
        _ => {}
    }
    body
}

#[test]
fn the_compile_api_survives_random_json() {
    require_gcc();
    let mut s = Server::start(&["--job-timeout", "5", "--max-body", "256"]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut seen: std::collections::BTreeMap<u16, usize> = Default::default();
    let deadline = Instant::now() + Duration::from_secs(150);
    for case in 0..400 {
        if Instant::now() > deadline {
            break;
        }
        let body = random_request(&mut rng);
        let id = if rng.below(10) == 0 { "nope" } else { "gcc" };
        let r = s.request(
            "POST",
            &format!("/api/compiler/{id}/compile"),
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            &body,
        );
        let shown = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        assert!(
            r.status == 200 || (400..500).contains(&r.status),
            "case {case}: HTTP {} for {shown}: {}",
            r.status,
            r.text()
        );
        let v = r.json();
        if r.status == 200 {
            assert!(v["code"].is_number(), "case {case}: {v}");
        } else {
            assert!(v["error"].is_string(), "case {case}: {v}");
        }
        *seen.entry(r.status).or_default() += 1;
        assert!(s.alive(), "case {case} killed the server: {shown}");
    }
    eprintln!("statuses seen: {seen:?}");
    assert!(seen.get(&200).is_some_and(|&n| n > 0), "{seen:?}");
    assert!(seen.get(&400).is_some_and(|&n| n > 0), "{seen:?}");
    assert_eq!(s.get("/").status, 200);
    assert_eq!(s.get("/api/compilers").status, 200);
}
