//! The user's compiler flags (`options.userArguments`): split shell-like, never run through a
//! shell, and checked against an allowlist per compiler family: flags that change what the
//! compiler makes of the source pass; anything that could name a file outside the job, load
//! code or run a program is refused with a message naming the flag and what is allowed. The
//! server sets the output file itself.

use super::compilers::Driver;

/// Splits `-O2 -DX="a b"` into words the way a POSIX shell would, without expanding anything.
pub fn split(s: &str) -> Result<Vec<String>, String> {
    shlex::split(s).ok_or_else(|| {
        format!("could not split the arguments {s:?}: a quote is not closed or a backslash ends them; quote them as in a shell")
    })
}

/// `Err(message)` naming the first argument that is not on `kind`'s allowlist and what is
/// allowed. Only flags that change what the compiler makes of the source are allowed: none
/// that names a file outside the job, loads code, or runs a program.
pub fn check(kind: Driver, args: &[String]) -> Result<(), String> {
    let family = kind.family();
    let (name, what) = family.flags();
    let mut i = 0;
    while i < args.len() {
        let next = args.get(i + 1).map(String::as_str);
        if let Some(carrier) = carries_flags(&args[i]).filter(|_| family.reads_c()) {
            return Err(format!(
                "argument {:?} is not allowed: {carrier} hands other flags on to the compiler or another tool (which could load a plugin or name files); whittle serve refuses every flag that carries flags. Write the flags themselves instead: it accepts only {} ({})",
                args[i], what, name
            ));
        }
        match family.allowed(&args[i], next) {
            Some(taken) => i += taken,
            None => {
                return Err(format!(
                    "argument {:?} is not allowed: whittle serve accepts only {} ({}); remove it",
                    args[i], what, name
                ))
            }
        }
    }
    Ok(())
}

/// The flag family of `arg` when it carries further flags as its value for gcc, clang or tcc
/// (`-fcompare-debug=-fplugin=…`, `-Wl,…`, `-Xlinker …`, `-mllvm …`, `@file`, …): the
/// allowlist vets one flag, not the flags inside it.
fn carries_flags(arg: &str) -> Option<&'static str> {
    const CARRIERS: &[(&str, &str)] = &[
        ("-fcompare-debug", "-fcompare-debug…"),
        ("-foffload", "-foffload…"),
        ("-fplugin-arg", "-fplugin-arg-…"),
        ("-mllvm", "-mllvm"),
        ("-X", "-X… (-Xlinker, -Xassembler, -Xpreprocessor, -Xclang)"),
        ("-Wl,", "-Wl,"),
        ("-Wa,", "-Wa,"),
        ("-Wp,", "-Wp,"),
        ("-specs", "-specs="),
        ("--specs", "--specs="),
        ("-wrapper", "-wrapper"),
        ("@", "@file"),
    ];
    if let Some((_, name)) = CARRIERS.iter().find(|(p, _)| arg.starts_with(p)) {
        return Some(name);
    }
    // An option of the compiler proper whose value is itself a flag: `-fwhatever=-fplugin=x`,
    // `-mfoo=a,-b` (not `-DN=-1`, which is macro text).
    let value = arg.split_once('=').map_or("", |(_, v)| v);
    let proper = arg.starts_with("-f") || arg.starts_with("-m");
    (proper && value.split([',', '=']).any(|part| part.starts_with('-')))
        .then_some("a flag whose value is a flag")
}

/// A word made only of these (no path, no list of further flags): `c++17`, `x86-64`.
fn word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-+.=".contains(c))
}

pub(super) fn c_allowed(arg: &str, next: Option<&str>) -> Option<usize> {
    const EXACT: &[&str] = &[
        "-O",
        "-w",
        "-ansi",
        "-pedantic",
        "-pedantic-errors",
        "-g",
        "-ggdb",
        "-pthread",
        "-static",
        "-c",
        "-E",
        "-P",
        "-C",
        "-S",
        "-save-temps",
        "-v",
        "-pie",
        "-no-pie",
        "-trigraphs",
        "-traditional-cpp",
        "-undef",
        "-nostdinc",
        "-fsyntax-only",
    ];
    // `-f` flags that load code, pick a program or name files elsewhere whatever their value.
    const F_REFUSED: &[&str] = &[
        "-fplugin",
        "-fpass-plugin",
        "-fuse-ld",
        "-fld-path",
        "-fprofile-use",
        "-fsanitize-blacklist",
        "-fsanitize-ignorelist",
        "-fcrash-diagnostics-dir",
        "-fmodules-cache-path",
        "-fmodule-file",
        "-fprebuilt-module-path",
    ];
    if EXACT.contains(&arg) {
        return Some(1);
    }
    if arg == "-x" {
        return next.filter(|l| word(l) && !l.starts_with('-')).map(|_| 2);
    }
    if let Some(v) = arg.strip_prefix("-std=").or(arg.strip_prefix("--std=")) {
        return word(v).then_some(1);
    }
    if let Some(def) = arg.strip_prefix("-D").or(arg.strip_prefix("-U")) {
        // A macro's value is only text the preprocessor pastes.
        let name = def.split('=').next().unwrap_or("");
        return (!name.is_empty()
            && name.chars().all(|c| {
                c.is_ascii_alphanumeric() || c == '_' || c == '(' || c == ')' || c == ','
            }))
        .then_some(1);
    }
    if let Some(dir) = arg.strip_prefix("-I") {
        // Reading headers is harmless (a source can #include any path); `..` is refused so
        // that the flag never names the job's surroundings.
        return (!dir.is_empty() && !has_parent_dir(dir) && !dir.contains(',')).then_some(1);
    }
    if let Some(lib) = arg.strip_prefix("-l") {
        return word(lib).then_some(1);
    }
    if let Some(level) = arg.strip_prefix("-O").or(arg.strip_prefix("-g")) {
        return word(level).then_some(1);
    }
    if let Some(w) = arg.strip_prefix("-W") {
        // -Wa, -Wl, -Wp pass lists of flags on to other tools: their comma is not a word.
        return word(w).then_some(1);
    }
    if let Some(m) = arg.strip_prefix("-m").or(arg.strip_prefix("--target=")) {
        return word(m).then_some(1);
    }
    if let Some(rest) = arg.strip_prefix("-f") {
        let name = arg.split('=').next().unwrap_or(arg);
        let no = name.replacen("-fno-", "-f", 1);
        // Commas separate values here (`-fsanitize=address,undefined`), not further flags.
        let value_ok = word(&rest.replace(',', "-"));
        return (value_ok && !F_REFUSED.iter().any(|r| no.starts_with(r))).then_some(1);
    }
    if let Some(p) = arg.strip_prefix("--param=") {
        return word(p).then_some(1);
    }
    None
}

pub(super) fn rustc_allowed(arg: &str, next: Option<&str>) -> Option<usize> {
    const CODEGEN: &[&str] = &[
        "opt-level",
        "debuginfo",
        "target-cpu",
        "target-feature",
        "overflow-checks",
        "debug-assertions",
        "panic",
        "codegen-units",
        "lto",
        "relocation-model",
        "strip",
        "force-frame-pointers",
    ];
    let codegen = |opt: &str| {
        let key = opt.split('=').next().unwrap_or("");
        CODEGEN.contains(&key) && word(opt)
    };
    let lint = |l: &str| word(l) && !l.contains('=');
    match arg {
        "-O" | "-g" | "--test" => return Some(1),
        "-C" | "--codegen" => return next.filter(|o| codegen(o)).map(|_| 2),
        "-A" | "-W" | "-D" | "-F" | "--cap-lints" | "--allow" | "--warn" | "--deny"
        | "--forbid" => return next.filter(|l| lint(l)).map(|_| 2),
        "--edition" | "--crate-type" | "--cfg" | "--target" | "--crate-name" => {
            return next.filter(|v| word(v)).map(|_| 2)
        }
        _ => {}
    }
    if let Some(opt) = arg.strip_prefix("-C").or(arg.strip_prefix("--codegen=")) {
        return codegen(opt).then_some(1);
    }
    for flag in ["-A", "-W", "-D", "-F"] {
        if let Some(l) = arg.strip_prefix(flag) {
            return lint(l).then_some(1);
        }
    }
    for flag in [
        "--edition=",
        "--crate-type=",
        "--cfg=",
        "--target=",
        "--cap-lints=",
        "--crate-name=",
    ] {
        if let Some(v) = arg.strip_prefix(flag) {
            return word(v).then_some(1);
        }
    }
    None
}

pub(super) fn node_allowed(arg: &str) -> bool {
    const EXACT: &[&str] = &[
        "--no-warnings",
        "--trace-warnings",
        "--trace-deprecation",
        "--throw-deprecation",
        "--pending-deprecation",
        "--no-deprecation",
        "--jitless",
        "--use-strict",
        "--enable-source-maps",
        "--expose-gc",
        "--allow-natives-syntax",
        "--experimental-vm-modules",
        "--trace-uncaught",
    ];
    const VALUED: &[&str] = &["--unhandled-rejections=", "--stack-size=", "--input-type="];
    EXACT.contains(&arg)
        || (arg.starts_with("--harmony") && word(arg))
        || (arg.starts_with("--experimental-wasm-") && word(arg))
        || VALUED.iter().any(|p| arg.strip_prefix(p).is_some_and(word))
}

pub(super) fn javac_allowed(arg: &str, next: Option<&str>) -> Option<usize> {
    const EXACT: &[&str] = &[
        "-Werror",
        "-nowarn",
        "-deprecation",
        "-g",
        "-parameters",
        "--enable-preview",
        "-proc:none",
        "-verbose",
    ];
    if EXACT.contains(&arg) {
        return Some(1);
    }
    if matches!(
        arg,
        "-source" | "--source" | "-target" | "--target" | "--release" | "-Xmaxerrs" | "-Xmaxwarns"
    ) {
        return next.filter(|v| word(v)).map(|_| 2);
    }
    let valued = [
        "-Xlint",
        "-g:",
        "-Xdiags:",
        "-implicit:",
        "--release=",
        "--source=",
        "--target=",
    ];
    valued
        .iter()
        .any(|p| {
            arg.strip_prefix(p)
                .is_some_and(|v| v.is_empty() || word(&v.replace([':', ','], "-")))
        })
        .then_some(1)
}

/// True when `arg` names a path with a `..` component (`-I../x`, `-I..`, `-Lx/..`).
fn has_parent_dir(arg: &str) -> bool {
    let ends_in_parent = arg
        .strip_suffix("..")
        .is_some_and(|rest| !rest.ends_with('.')); // `-I..`, not `-DX=...`
    arg.contains("../")
        || arg.contains("..\\")
        || ends_in_parent
        || arg
            .split(['/', '\\', '=', ',', ':'])
            .any(|part| part == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        split(s).unwrap()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            words("-O2  -Wall -DX='a b' \"-DY=c d\""),
            ["-O2", "-Wall", "-DX=a b", "-DY=c d"]
        );
        assert_eq!(words(""), Vec::<String>::new());
        assert!(split("-DX='unclosed").is_err());
    }

    #[test]
    fn refuses_what_writes_elsewhere() {
        for bad in [
            "-o /tmp/x",
            "-o/tmp/x",
            "-fplugin=./p.so",
            "-specs=x",
            "@args.txt",
            "-I../include",
            "-include=/a/../b",
            "-Wl,-o,/tmp/x",
            "-MF /tmp/d",
        ] {
            assert!(
                check(Driver::Gcc, &words(bad)).is_err(),
                "{bad} was allowed"
            );
        }
        for good in [
            "-DDOTS=...",
            "-O2 -Wall",
            "-std=c11 -fsanitize=undefined",
            "-I/usr/include -DN=3",
            "-x c++ -march=native",
            "-save-temps",
        ] {
            assert_eq!(check(Driver::Gcc, &words(good)), Ok(()), "{good}");
        }
    }

    /// tcc's own ways to run a program, name files or pick its runtime: refused.
    #[test]
    fn refuses_tccs_escapes() {
        for bad in [
            "-run",
            "-run -lc",
            "-L/tmp",
            "-B/tmp",
            "-MD",
            "-MF /tmp/x",
            "-o /tmp/x",
            "-Wl,-rpath=/tmp",
            "-isystem /tmp",
            "-soname x",
            "-shared",
            "-bt4",
        ] {
            assert!(
                check(Driver::Tcc, &words(bad)).is_err(),
                "{bad} was allowed"
            );
        }
        assert_eq!(
            check(Driver::Tcc, &words("-O2 -g -Wall -DX=1 -std=c99")),
            Ok(())
        );
    }

    /// Every flag the security review found writing outside the job, running a program or
    /// loading code, and those the issue names besides: all refused.
    #[test]
    fn refuses_every_known_escape() {
        let gcc = [
            "-wrapper /bin/sh,-c,touch",
            "-fdump-tree-original=/tmp/x",
            "-fdump-final-insns=/tmp/x",
            "-fopt-info-all=/tmp/x",
            "-aux-info /tmp/x",
            "-Wp,-MD,/tmp/x",
            "-Xpreprocessor -MD",
            "-MJ /tmp/x",
            "-foptimization-record-file=/tmp/x",
            "-Xclang -dependency-file",
            "-Wa,-adhln=/tmp/x",
            "-Wa,--MD,/tmp/x",
            "-fuse-ld=/tmp/ld",
            "-fuse-ld=gold",
            "-Wl,-plugin,/tmp/p.so",
            "--sysroot=/tmp",
            "--sysroot /tmp",
            "-include /etc/passwd",
            "-B/tmp",
            "-fprofile-generate=/tmp/x",
        ];
        for bad in gcc {
            for kind in [Driver::Gcc, Driver::Clang, Driver::Tcc] {
                let err = check(kind, &words(bad)).expect_err(bad);
                assert!(
                    err.contains("not allowed") && err.contains("gcc, clang and tcc"),
                    "{err}"
                );
            }
        }
        for bad in [
            "--print=cfg=/tmp/x",
            "--print cfg",
            "--extern x=/tmp/l.rlib",
            "-C llvm-args=-x",
            "-Cllvm-args=x",
            "-C linker=/tmp/sh",
            "-L/tmp",
        ] {
            assert!(check(Driver::Rustc, &words(bad)).is_err(), "{bad}");
        }
        for bad in [
            "x.js",
            "-r ./x.js",
            "--require=./x.js",
            "--import=data:text/javascript,1",
            "--inspect",
            "--inspect-brk=0",
            "--env-file=/etc/passwd",
            "--max-old-space-size=99999",
            "--loader=./l.mjs",
        ] {
            assert!(check(Driver::Node, &words(bad)).is_err(), "{bad}");
        }
        for bad in [
            "-J-XX:OnOutOfMemoryError=touch",
            "-Xstdout /tmp/x",
            "-cp /tmp",
            "-classpath /tmp",
            "-processor X",
            "-processorpath /tmp",
            "-Xplugin:X",
        ] {
            assert!(check(Driver::Javac, &words(bad)).is_err(), "{bad}");
        }
    }

    /// Flags whose value is more flags: the one that loaded a plugin through gcc's
    /// `-fcompare-debug=` and its relatives, refused by name.
    #[test]
    fn refuses_flags_that_carry_flags() {
        for bad in [
            "-fcompare-debug=-fplugin=p.so",
            "-fcompare-debug",
            "-fcompare-debug-second",
            "-foffload-options=-fplugin=p.so",
            "-foffload=nvptx-none=-fplugin=p.so",
            "-mllvm -load=plugin.so",
            "-Xlinker -plugin",
            "-Xassembler --MD",
            "-Xpreprocessor -MD",
            "-Xclang -load",
            "-Wl,-plugin,p.so",
            "-Wa,-adhln=x",
            "-Wp,-MD,x",
            "-specs=x",
            "--specs=x",
            "-wrapper sh",
            "@args",
            "-fsanitize=address,-fplugin=p.so",
            "-mtune=-fplugin",
        ] {
            for kind in [Driver::Gcc, Driver::Clang, Driver::Tcc] {
                let err = check(kind, &words(bad)).expect_err(bad);
                let first = words(bad).remove(0);
                assert!(
                    err.contains(&format!("{first:?}")) && err.contains("carries flags"),
                    "{bad}: {err}"
                );
            }
        }
        assert!(check(Driver::Gcc, &words("-x -fplugin=p.so")).is_err());
        // Values that merely contain a dash, and macros with negative values, still pass.
        assert_eq!(
            check(
                Driver::Gcc,
                &words("-fsanitize-coverage=trace-pc -march=x86-64-v3 -DOFFSET=-1 -UX")
            ),
            Ok(())
        );
        // javac's own -X flags and `-` in its lint lists are not C flags.
        assert_eq!(check(Driver::Javac, &words("-Xlint:all,-serial")), Ok(()));
    }

    #[test]
    fn allows_what_people_use() {
        for good in ["-O3 -march=x86-64-v2 -fno-strict-aliasing -fsanitize=address,undefined -Wextra -Wno-unused -Werror=format -std=gnu17 -g3 -DNDEBUG -lm -pthread", "-Ofast -mavx2 -fPIC -w"] {
            assert_eq!(check(Driver::Gcc, &words(good)), Ok(()), "{good}");
        }
        assert_eq!(check(Driver::Rustc, &words("-O -g -Copt-level=2 -C debuginfo=1 --edition=2021 --crate-type lib -A dead_code -Wunused --cfg feature")), Ok(()));
        assert_eq!(
            check(
                Driver::Javac,
                &words("-Xlint:unchecked,deprecation -Werror -g:none --release=17 -source 17")
            ),
            Ok(())
        );
        assert_eq!(
            check(
                Driver::Node,
                &words("--unhandled-rejections=strict --experimental-vm-modules --no-warnings")
            ),
            Ok(())
        );
    }

    #[test]
    fn rustc_javac_node_rules() {
        assert!(check(Driver::Rustc, &words("-C incremental=/tmp/x")).is_err());
        assert!(check(Driver::Rustc, &words("--emit=llvm-ir")).is_err());
        assert_eq!(
            check(Driver::Rustc, &words("-C opt-level=3 --edition 2018")),
            Ok(())
        );
        assert!(check(Driver::Javac, &words("-d /tmp")).is_err());
        assert_eq!(
            check(Driver::Javac, &words("-Xlint:all --release 17")),
            Ok(())
        );
        assert!(check(Driver::Node, &words("--cpu-prof-dir=/tmp")).is_err());
        assert_eq!(
            check(Driver::Node, &words("--harmony --stack-size=2000")),
            Ok(())
        );
    }
}
