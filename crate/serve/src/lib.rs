//! What runs other programs, apart from the commands that decide what to run: the contained
//! process runner every test and compile goes through (`process`, with its sandbox, jail and
//! seccomp filter), the coverage of a compile (`coverage`), and `whittle serve`'s compile
//! server (`server`), which offers Compiler Explorer's API on this machine's compilers.

pub mod coverage;
pub mod jail;
pub mod process;
pub mod sandbox;
pub mod seccomp;
pub mod server;
