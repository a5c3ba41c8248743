//! What the server knows of each family of compilers, in one place per family: how Compiler
//! Explorer describes it and the tools found beside it (`compilers.rs` lists them), the flags
//! it accepts (`user_args.rs` checks them), whether its sources are vetted for pragmas
//! (`pragmas.rs`), and what a job runs (`compile/families.rs`).

use std::path::PathBuf;

use super::compile::{families, Ctx, JobResult};
use super::compilers::{find_in_path, native_arch_label, native_instruction_set, Driver};
use super::user_args;

/// A compiler family.
pub(in crate::server) trait Family: Sync {
    /// Compiler Explorer's `compilerType`.
    fn compiler_type(&self) -> &'static str;
    /// Compiler Explorer's `instructionSet`.
    fn instruction_set(&self) -> &'static str {
        native_instruction_set()
    }
    /// The name the listing shows.
    fn display_name(&self, label: &str, semver: &str) -> String {
        format!("{label} {semver}")
    }
    /// The runner and the disassembler it needs beside it, or the executable that is missing.
    fn tools(&self) -> Result<Tools, &'static str> {
        Ok(Tools::default())
    }
    /// Whether the `binary` filter works, given whether a disassembler was found.
    fn binary(&self, _disassembler: bool) -> bool {
        false
    }
    /// Whether it reads C: flags that hand flags on and pragmas that pass options are refused.
    fn reads_c(&self) -> bool {
        false
    }
    /// Whether it runs on a virtual machine (node, the JVM) that reserves more address space
    /// than a limit on it would allow: its memory becomes a data limit instead.
    fn virtual_machine(&self) -> bool {
        false
    }
    /// Its flag allowlist: its name and what it holds, for messages.
    fn flags(&self) -> (&'static str, &'static str);
    /// How many arguments an allowed flag takes up (1, or 2 with its value), or `None`.
    fn allowed(&self, arg: &str, next: Option<&str>) -> Option<usize>;
    /// Runs a job (see `compile/mod.rs` for each family's commands).
    fn compile(&self, ctx: &mut Ctx<'_>) -> Result<JobResult, String>;
}

/// The tools a compiler needs beside it.
#[derive(Default)]
pub(in crate::server) struct Tools {
    /// `java` for javac (runs the classes).
    pub runner: Option<PathBuf>,
    /// `javap` for javac, `objdump` for C and C++.
    pub disassembler: Option<PathBuf>,
}

impl Driver {
    pub(in crate::server) fn family(self) -> &'static dyn Family {
        match self {
            Driver::Gcc => &GCC,
            Driver::Clang => &CLANG,
            Driver::Rustc => &Rustc,
            Driver::Node => &Node,
            Driver::Javac => &Javac,
            Driver::Tcc => &TCC,
        }
    }
}

/// The allowlist gcc, clang and tcc share (tcc takes a subset of gcc's flags; the others it
/// refuses or ignores).
const C_FLAGS: (&str, &str) = ("gcc, clang and tcc", "optimization levels (-O…), standards (-std=, -ansi), warnings (-W…, -w, -pedantic), defines (-D, -U), debug info (-g…), target and architecture choices (-m…, -march=, --target=), code generation and sanitizer flags (-f… with no path, plugin or linker), -x LANG, -I inside the job, -l, -pthread, -static, -c, -E, -P, -save-temps, -v");

/// gcc, clang and tcc: one allowlist, C sources, objdump for the `binary` filter; told apart by
/// Compiler Explorer's `compilerType` and the job they run (tcc's, from its coverage build,
/// carries the compile's coverage; `compilers::probe_tcc` finds and names it, not PATH).
struct CLike {
    compiler_type: &'static str,
    compile: fn(&mut Ctx<'_>) -> Result<JobResult, String>,
}

static GCC: CLike = CLike {
    compiler_type: "",
    compile: families::c_like,
};
static CLANG: CLike = CLike {
    compiler_type: "clang",
    compile: families::c_like,
};
static TCC: CLike = CLike {
    compiler_type: "tinyc",
    compile: families::tcc,
};
struct Rustc;
struct Node;
struct Javac;

impl Family for CLike {
    fn compiler_type(&self) -> &'static str {
        self.compiler_type
    }
    fn display_name(&self, label: &str, semver: &str) -> String {
        format!("{} {label} {semver}", native_arch_label())
    }
    fn tools(&self) -> Result<Tools, &'static str> {
        Ok(Tools {
            runner: None,
            disassembler: find_in_path("objdump"),
        })
    }
    fn binary(&self, disassembler: bool) -> bool {
        disassembler
    }
    fn reads_c(&self) -> bool {
        true
    }
    fn flags(&self) -> (&'static str, &'static str) {
        C_FLAGS
    }
    fn allowed(&self, arg: &str, next: Option<&str>) -> Option<usize> {
        user_args::c_allowed(arg, next)
    }
    fn compile(&self, ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
        (self.compile)(ctx)
    }
}

impl Family for Rustc {
    fn compiler_type(&self) -> &'static str {
        "rust"
    }
    fn flags(&self) -> (&'static str, &'static str) {
        ("rustc", "-O, -g, --edition, --crate-type, --cfg, lint levels (-A, -W, -D, -F, --cap-lints), --target, and -C opt-level, debuginfo, target-cpu, target-feature, overflow-checks, debug-assertions, panic, codegen-units, lto, relocation-model")
    }
    fn allowed(&self, arg: &str, next: Option<&str>) -> Option<usize> {
        user_args::rustc_allowed(arg, next)
    }
    fn compile(&self, ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
        families::rustc(ctx)
    }
}

impl Family for Node {
    fn compiler_type(&self) -> &'static str {
        "nodejs"
    }
    fn instruction_set(&self) -> &'static str {
        "javascript"
    }
    fn virtual_machine(&self) -> bool {
        true
    }
    fn flags(&self) -> (&'static str, &'static str) {
        ("node", "--harmony…, --no-warnings, --trace-warnings, --trace-deprecation, --throw-deprecation, --pending-deprecation, --no-deprecation, --unhandled-rejections=, --jitless, --use-strict, --enable-source-maps, --stack-size=, --input-type=, --expose-gc, --allow-natives-syntax, --experimental-vm-modules, --experimental-wasm-…")
    }
    fn allowed(&self, arg: &str, _next: Option<&str>) -> Option<usize> {
        user_args::node_allowed(arg).then_some(1)
    }
    fn compile(&self, ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
        families::node(ctx)
    }
}

impl Family for Javac {
    fn compiler_type(&self) -> &'static str {
        "java"
    }
    fn instruction_set(&self) -> &'static str {
        "java"
    }
    fn tools(&self) -> Result<Tools, &'static str> {
        Ok(Tools {
            runner: Some(find_in_path("java").ok_or("java")?),
            disassembler: find_in_path("javap"),
        })
    }
    fn binary(&self, _disassembler: bool) -> bool {
        true
    }
    fn virtual_machine(&self) -> bool {
        true
    }
    fn flags(&self) -> (&'static str, &'static str) {
        ("javac", "-Xlint…, -Werror, -nowarn, -deprecation, -g…, -parameters, -source, -target, --release, -Xdiags:…, -Xmaxerrs, -Xmaxwarns, --enable-preview, -proc:none, -implicit:…")
    }
    fn allowed(&self, arg: &str, next: Option<&str>) -> Option<usize> {
        user_args::javac_allowed(arg, next)
    }
    fn compile(&self, ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
        families::javac(ctx)
    }
}
