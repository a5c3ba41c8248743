//! End-to-end tests of `whittle serve`'s Compiler Explorer-shaped API: the compilers it lists,
//! compiling and running a program, and the requests it refuses.
//!
//! The compile tests need gcc on PATH (scripts/setup.sh installs it with the rest).

use serde_json::json;

mod support;

use support::*;

#[test]
fn lists_compilers_and_languages() {
    let s = Server::start(&[]);
    let r = s.get("/api/compilers");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let list = r.json();
    let list = list.as_array().unwrap();
    for c in list {
        for field in [
            "id",
            "name",
            "lang",
            "compilerType",
            "semver",
            "instructionSet",
        ] {
            assert!(c.get(field).is_some(), "{c} has no {field}");
        }
    }
    if have("gcc") {
        assert!(
            list.iter().any(|c| c["id"] == "gcc" && c["lang"] == "c"),
            "{list:?}"
        );
        let c_only = s.get("/api/compilers/c").json();
        assert!(c_only.as_array().unwrap().iter().all(|c| c["lang"] == "c"));
        let langs = s.get("/api/languages").json();
        assert!(langs.as_array().unwrap().iter().any(|l| l["id"] == "c"));
        // Plain text when asked for text only, as Compiler Explorer does.
        let text = s.request("GET", "/api/compilers", &[("Accept", "text/plain")], b"");
        assert!(text.text().contains("gcc"));
        assert!(text
            .header("content-type")
            .unwrap()
            .starts_with("text/plain"));
        // ?fields= picks fields.
        let few = s.get("/api/compilers/c?fields=id,name").json();
        assert!(few[0].get("semver").is_none() && few[0].get("id").is_some());
    }
}

#[test]
fn compiles_c_with_warnings_in_compiler_explorer_shape() {
    require_gcc();
    let s = Server::start(&[]);
    let r = s.compile(
        "gcc",
        &json!({
            "source": "int main(void){int *p = 0; int x = p; return x;}",
            "options": {"userArguments": "-O2 -Wall", "filters": {"execute": false}},
            "lang": "c",
        }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let v = r.json();
    assert_eq!(v["code"], 0, "{v}");
    let stderr = stream(&v["stderr"]);
    assert!(
        stderr.contains("makes integer from pointer without a cast"),
        "{stderr}"
    );
    assert!(
        stderr.contains("<source>:1:"),
        "messages name the source <source>: {stderr}"
    );
    assert!(stream(&v["asm"]).contains("main:"), "{}", v["asm"]);
    assert_eq!(v["okToCache"], true);
    assert!(v.get("execResult").is_none());
}

#[test]
fn syntax_error_gives_nonzero_code() {
    require_gcc();
    let s = Server::start(&[]);
    let v = s
        .compile(
            "gcc",
            &json!({"source": "int main( {", "options": {"userArguments": ""}}),
        )
        .json();
    assert_ne!(v["code"], 0, "{v}");
    assert!(stream(&v["stderr"]).contains("error"), "{v}");
}

#[test]
fn executes_the_program() {
    require_gcc();
    let s = Server::start(&[]);
    let source = "#include <stdio.h>\nint main(int argc, char **argv) {\n  char line[32] = \"\";\n  fgets(line, sizeof line, stdin);\n  printf(\"hello %s %s\", argv[1], line);\n  return 7;\n}\n";
    let v = s
        .compile("gcc", &json!({
            "source": source,
            "options": {"userArguments": "-O1", "filters": {"execute": true}, "executeParameters": {"args": ["there"], "stdin": "from stdin\n"}},
        }))
        .json();
    assert_eq!(v["code"], 0, "{v}");
    assert_eq!(v["didExecute"], true, "{v}");
    let e = &v["execResult"];
    assert_eq!(e["didExecute"], true);
    assert_eq!(e["code"], 7);
    assert_eq!(stream(&e["stdout"]), "hello there from stdin");
}

#[test]
fn refuses_bad_requests_with_json_errors() {
    let s = Server::start(&[]);
    // Unknown compiler: 404 listing the known ids.
    let r = s.compile("no-such-compiler", &json!({"source": "int x;"}));
    assert_eq!(r.status, 404);
    let v = r.json();
    assert!(v["error"].as_str().unwrap().contains("no-such-compiler"));
    assert!(v["known"].is_array());
    // A body over the limit (2 MiB by default): 413.
    let big = json!({"source": "x".repeat(3 << 20)}).to_string();
    let id = if have("gcc") {
        "gcc"
    } else {
        "no-such-compiler"
    };
    if id == "gcc" {
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile",
            &[("Content-Type", "application/json")],
            big.as_bytes(),
        );
        assert_eq!(r.status, 413, "{}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains("larger than"));
        // Malformed JSON: 400 with the parser's message.
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile",
            &[("Content-Type", "application/json")],
            b"{\"source\": ",
        );
        assert_eq!(r.status, 400);
        assert!(r.json()["error"].as_str().unwrap().contains("JSON"));
        // Flags that would write elsewhere: 400 saying which.
        for flags in [
            "-o /tmp/elsewhere",
            "-fplugin=./x.so",
            "@flags.txt",
            "-I../up",
        ] {
            let r = s.compile(
                "gcc",
                &json!({"source": "int x;", "options": {"userArguments": flags}}),
            );
            assert_eq!(r.status, 400, "{flags}: {}", r.text());
            assert!(
                r.json()["error"].as_str().unwrap().contains("not allowed"),
                "{flags}"
            );
        }
        // A page from another site may not run compile jobs here.
        let body = json!({"source": "int x;"}).to_string();
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile",
            &[("Origin", "https://elsewhere.example")],
            body.as_bytes(),
        );
        assert_eq!(r.status, 403, "{}", r.text());
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("--allow-origin"));
    }
}

#[test]
fn answers_cors_preflight() {
    let s = Server::start(&[]);
    let r = s.request(
        "OPTIONS",
        "/api/compiler/gcc/compile",
        &[
            ("Origin", "http://localhost:5173"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ],
        b"",
    );
    assert!(r.status == 204 || r.status == 200, "{}", r.status);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(r
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));
    assert!(r
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase()
        .contains("content-type"));
}

#[test]
fn compile_and_cancel_requests_must_be_json() {
    require_gcc();
    let s = Server::start(&[]);
    for content_type in [
        None,
        Some("text/plain"),
        Some("text/plain;charset=UTF-8"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
    ] {
        let headers: Vec<(&str, &str)> = content_type
            .map(|t| ("Content-Type", t))
            .into_iter()
            .collect();
        // Compiler Explorer's plain form (bare source, flags in ?options=) is refused too.
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile?options=-O2",
            &headers,
            b"int main(void){return 0;}",
        );
        assert_eq!(r.status, 415, "{content_type:?}: {}", r.text());
        let msg = r.json()["error"].as_str().unwrap().to_string();
        assert!(msg.contains("Content-Type: application/json"), "{msg}");
        let r = s.request("POST", "/api/cancel/some-key", &headers, b"");
        assert_eq!(r.status, 415, "{content_type:?}: {}", r.text());
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("application/json"));
    }
    let r = s.request(
        "POST",
        "/api/compiler/gcc/compile",
        &[("Content-Type", "Application/JSON; charset=utf-8")],
        json!({"source": "int main(void){return 0;}"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s.request("POST", "/api/cancel/some-key", JSON, b"");
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"cancelled": false}));
}

#[test]
fn compiles_a_source_with_the_files_beside_it() {
    require_gcc();
    let s = Server::start(&[]);
    let source = "#include \"inc/util.h\"\nint main(void) { return twice(V); }\n";
    let files = json!([
        {"filename": "inc/util.h", "contents": "#include \"more.h\"\nstatic int twice(int x) { return 2 * x; }\n"},
        {"filename": "inc/more.h", "contents": "#define V 21\n"},
    ]);
    let v = s
        .compile("gcc", &json!({"source": source, "files": files, "options": {"userArguments": "-O1", "filters": {"execute": true}}}))
        .json();
    assert_eq!(v["code"], 0, "{v}");
    assert_eq!(v["execResult"]["code"], 42, "{v}");
    // Without them the header is missing.
    let v = s
        .compile(
            "gcc",
            &json!({"source": source, "options": {"userArguments": ""}}),
        )
        .json();
    assert_ne!(v["code"], 0, "{v}");
    assert!(stream(&v["stderr"]).contains("inc/util.h"), "{v}");
    // A name outside the job folder, or a pragma in a file, is refused before anything runs.
    for (name, contents, says) in [
        ("../../etc/evil.h", "", "is refused"),
        ("/tmp/abs.h", "", "is refused"),
        (
            "bad.h",
            "#pragma comment(option, \"-MD\")\n",
            "bad.h: the source has #pragma comment",
        ),
    ] {
        let body = json!({"source": source, "files": [{"filename": name, "contents": contents}]});
        let r = s.compile("gcc", &body);
        assert_eq!(r.status, 400, "{name}: {}", r.text());
        let e = r.json()["error"].as_str().unwrap().to_string();
        assert!(e.contains(says), "{name}: {e}");
    }
}
