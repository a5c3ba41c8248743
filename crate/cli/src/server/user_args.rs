//! The user's compiler flags (`options.userArguments`): split shell-like, never run through a
//! shell, and refused when they would make the compiler write outside the job's folder or load
//! code from elsewhere. The server sets the output file itself.

use super::compilers::Kind;

/// Splits `-O2 -DX="a b"` into words the way a POSIX shell would, without expanding anything.
pub fn split(s: &str) -> Result<Vec<String>, String> {
    shlex::split(s).ok_or_else(|| {
        format!("could not split the arguments {s:?}: a quote is not closed or a backslash ends them; quote them as in a shell")
    })
}

/// `Err(message)` saying which argument is refused and what to do instead.
pub fn check(kind: Kind, args: &[String]) -> Result<(), String> {
    let mut prev: Option<&str> = None;
    for arg in args {
        if let Some(why) = refusal(kind, arg, prev) {
            return Err(format!("argument {arg:?} is not allowed: {why}"));
        }
        prev = Some(arg);
    }
    Ok(())
}

fn refusal(kind: Kind, arg: &str, prev: Option<&str>) -> Option<&'static str> {
    if arg.starts_with('@') {
        return Some(
            "response files (@file) are not read; put the flags themselves in userArguments",
        );
    }
    if has_parent_dir(arg) {
        return Some("paths with `..` are refused; each job runs in its own folder with only the source in it");
    }
    match kind {
        Kind::Gcc | Kind::Clang => c_refusal(arg, prev),
        Kind::Rustc => rustc_refusal(arg, prev),
        Kind::Javac => javac_refusal(arg),
        Kind::Node => node_refusal(arg),
    }
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

const OUTPUT_IS_OURS: &str = "whittle serve chooses the output file itself (output.s, or the program when executing); remove it";

fn c_refusal(arg: &str, prev: Option<&str>) -> Option<&'static str> {
    if arg.starts_with("-o") || arg.starts_with("--output") {
        return Some(OUTPUT_IS_OURS);
    }
    if arg.starts_with("-fplugin")
        || arg.starts_with("-fpass-plugin")
        || arg == "-load"
        || arg == "-plugin"
    {
        return Some("compiler plugins are not loaded; remove the flag");
    }
    if arg.starts_with("-specs") || arg.starts_with("--specs") {
        return Some("spec files are not read; remove -specs");
    }
    if arg.starts_with("-MF") || arg.starts_with("-dumpdir") || arg.starts_with("-dumpbase") {
        return Some("it names a file to write; leave it out (dependency and dump files land in the job folder)");
    }
    if arg.starts_with("-fprofile-generate=") || arg.starts_with("-fprofile-dir=") {
        return Some("profile output paths are refused; use -fprofile-generate without a path");
    }
    if arg.starts_with("-B") || arg.starts_with("--prefix") {
        return Some("-B makes the driver run programs from another folder; remove it");
    }
    let linker_words = arg
        .strip_prefix("-Wl,")
        .map(|s| s.split(',').collect::<Vec<_>>());
    let passes_to_linker = |w: &str| {
        w == "-o" || w.starts_with("--output") || w.starts_with("-Map") || w.starts_with("--Map")
    };
    if linker_words.is_some_and(|ws| ws.iter().any(|w| passes_to_linker(w)))
        || (prev == Some("-Xlinker") && passes_to_linker(arg))
    {
        return Some("linker output paths are set by whittle serve; remove it");
    }
    None
}

fn rustc_refusal(arg: &str, prev: Option<&str>) -> Option<&'static str> {
    if arg.starts_with("-o") || arg.starts_with("--out-dir") {
        return Some(OUTPUT_IS_OURS);
    }
    if arg.starts_with("--emit") {
        return Some("whittle serve sets --emit (asm, or a program when executing); remove it");
    }
    // Codegen options come as `-C opt`, `-Copt` or `--codegen opt`.
    let codegen = arg
        .strip_prefix("-C")
        .filter(|s| !s.is_empty())
        .or_else(|| {
            arg.strip_prefix("--codegen=")
                .or(if matches!(prev, Some("-C" | "--codegen")) {
                    Some(arg)
                } else {
                    None
                })
        });
    if let Some(opt) = codegen {
        if [
            "incremental",
            "linker",
            "link-arg",
            "link-args",
            "profile-generate",
            "save-temps",
        ]
        .iter()
        .any(|p| opt.starts_with(p))
        {
            return Some("this codegen option writes or runs files outside the job; remove it");
        }
    }
    if arg.starts_with("-Z") || (prev == Some("-Z")) {
        return Some("unstable -Z options are refused (and need a nightly rustc)");
    }
    None
}

fn javac_refusal(arg: &str) -> Option<&'static str> {
    match arg {
        "-d" | "-s" | "-h" | "--directory" | "--source-output" | "--header-output" => {
            Some(OUTPUT_IS_OURS)
        }
        _ if arg.starts_with("-Xplugin")
            || arg == "-processorpath"
            || arg == "--processor-path" =>
        {
            Some("compiler plugins and annotation processors are not loaded; remove the flag")
        }
        _ => None,
    }
}

fn node_refusal(arg: &str) -> Option<&'static str> {
    let writes = [
        "--cpu-prof",
        "--heap-prof",
        "--diagnostic-dir",
        "--report",
        "--redirect-warnings",
        "--prof",
        "--trace-event-file-pattern",
        "--snapshot-blob",
        "--build-snapshot",
    ];
    if writes.iter().any(|w| arg.starts_with(w)) {
        return Some("it writes files outside the job's output; remove it");
    }
    if arg == "-e"
        || arg == "--eval"
        || arg == "-p"
        || arg == "--print"
        || arg == "-c"
        || arg == "--check"
    {
        return Some("whittle serve runs the source itself (node --check, or node file when executing); remove it");
    }
    None
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
            assert!(check(Kind::Gcc, &words(bad)).is_err(), "{bad} was allowed");
        }
        for good in [
            "-DDOTS=...",
            "-O2 -Wall",
            "-std=c11 -fsanitize=undefined",
            "-I/usr/include -DN=3",
            "-x c++ -march=native",
            "-save-temps",
        ] {
            assert_eq!(check(Kind::Gcc, &words(good)), Ok(()), "{good}");
        }
    }

    #[test]
    fn rustc_javac_node_rules() {
        assert!(check(Kind::Rustc, &words("-C incremental=/tmp/x")).is_err());
        assert!(check(Kind::Rustc, &words("--emit=llvm-ir")).is_err());
        assert_eq!(
            check(Kind::Rustc, &words("-C opt-level=3 --edition 2018")),
            Ok(())
        );
        assert!(check(Kind::Javac, &words("-d /tmp")).is_err());
        assert_eq!(
            check(Kind::Javac, &words("-Xlint:all --release 17")),
            Ok(())
        );
        assert!(check(Kind::Node, &words("--cpu-prof-dir=/tmp")).is_err());
        assert_eq!(
            check(Kind::Node, &words("--harmony --stack-size=2000")),
            Ok(())
        );
    }
}
