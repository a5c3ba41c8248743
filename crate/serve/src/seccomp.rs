//! The seccomp filter of compile jobs: a short classic-BPF program refusing, with EPERM, the
//! system calls no compiler or test program needs and that reach deep into the kernel:
//! io_uring, new namespaces (unshare, setns, clone with a namespace flag), bpf, perf events,
//! keyrings, mounting, modules, kexec, reboot, swap and the like. clone3 answers ENOSYS (its
//! flags sit in memory the filter cannot read), so the C library falls back to clone, whose
//! flags it can. Calls of another architecture's ABI (x32, or 32-bit calls) are killed.
//!
//! ptrace is refused too, except to a job's built program: LeakSanitizer (on by default with
//! -fsanitize=address) stops the program's threads with it, and in the job's own PID namespace
//! it reaches nothing but the job. Compilers never need it.

/// Calls refused with EPERM.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_setns,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_userfaultfd,
    libc::SYS_open_by_handle_at,
    libc::SYS_syslog,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

const NEW_NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;
/// unshare also takes CLONE_NEWTIME (0x80, which in clone's flags is part of the exit signal).
const NEW_TIME: u32 = 0x80;

#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;
/// Offsets into `struct seccomp_data`: nr, arch, the low half of args[0] (little-endian).
const NR: u32 = 0;
const ARCH_AT: u32 = 4;
const ARG0: u32 = 16;
const X32_BIT: u32 = 0x4000_0000;

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

const LD_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JGE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const AND: u16 = (libc::BPF_ALU | libc::BPF_AND | libc::BPF_K) as u16;
const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

/// The filter program; `ptrace`: whether ptrace is allowed.
fn program(ptrace: bool) -> Vec<libc::sock_filter> {
    let eperm = RET_ERRNO | libc::EPERM as u32;
    let mut p = vec![
        stmt(LD_ABS, ARCH_AT),
        jump(JEQ, ARCH, 1, 0),
        stmt(RET, RET_KILL_PROCESS),
        stmt(LD_ABS, NR),
    ];
    if cfg!(target_arch = "x86_64") {
        p.push(jump(JGE, X32_BIT, 0, 1));
        p.push(stmt(RET, RET_KILL_PROCESS));
    }
    p.push(jump(JEQ, libc::SYS_clone3 as u32, 0, 1));
    p.push(stmt(RET, RET_ERRNO | libc::ENOSYS as u32));
    let traced = (!ptrace).then_some(libc::SYS_ptrace);
    for &nr in REFUSED.iter().chain(&traced) {
        p.push(jump(JEQ, nr as u32, 0, 1));
        p.push(stmt(RET, eperm));
    }
    // clone and unshare: refused when asking for a namespace; the accumulator still holds
    // the number on the way past each block.
    for (nr, flags) in [
        (libc::SYS_clone, NEW_NAMESPACES),
        (libc::SYS_unshare, NEW_NAMESPACES | NEW_TIME),
    ] {
        p.extend([
            jump(JEQ, nr as u32, 0, 5),
            stmt(LD_ABS, ARG0),
            stmt(AND, flags),
            jump(JEQ, 0, 1, 0),
            stmt(RET, eperm),
            stmt(RET, RET_ALLOW),
        ]);
    }
    p.push(stmt(RET, RET_ALLOW));
    p
}

/// Installs the filter on the calling thread (inherited by all it starts); no_new_privs must
/// be set. `ptrace`: whether ptrace stays allowed (a built program's, for LeakSanitizer).
pub fn install(ptrace: bool) -> Result<(), String> {
    let filter = program(ptrace);
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: the kernel copies the program, which lives until the call returns.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &prog as *const libc::sock_fprog,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(format!(
            "seccomp filter: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// What the filter refuses, for the server's start-up message.
pub fn describe() -> &'static str {
    "seccomp refuses io_uring, new namespaces, bpf, perf events, keyrings, mounts, modules, kexec, reboot, swap, clock setting, and ptrace but to a built program"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_stay_inside_the_program() {
        for p in [program(false), program(true)] {
            jumps_stay_inside(&p);
        }
    }

    fn jumps_stay_inside(p: &[libc::sock_filter]) {
        for (i, ins) in p.iter().enumerate() {
            if ins.code & 0x07 == libc::BPF_JMP as u16 {
                assert!(
                    i + 1 + (ins.jt.max(ins.jf) as usize) < p.len(),
                    "jump at {i}"
                );
            }
        }
        assert_eq!(p.last().map(|i| (i.code, i.k)), Some((RET, RET_ALLOW)));
    }
}
