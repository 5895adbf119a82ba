//! Signals calib receives while a command runs, turned into events of the run
//! loop (the self-pipe pattern): the handler only records the signal in an
//! atomic mask and writes one byte to a pipe that the loop polls.
//!
//! Caught: `TERM`, `INT`, `HUP`, `QUIT` (requests to stop: forwarded to the
//! command, and no further run is started), `USR1`, `USR2` (forwarded only:
//! `sbatch --signal=USR1@60` warns a job before its walltime, and must not kill
//! calib by the default action), and `CHLD` (the command changed state).
//!
//! `XFSZ` (a file-size limit, `ulimit -f`, reached by a timings row) gets a
//! handler that does nothing: the write then fails (`EFBIG`) and calib says
//! so and ends the run as on a full disk, instead of dying without a word. A
//! handled signal is back to its default in the command after its `exec`.
//!
//! A signal the terminal sent (Ctrl-C: `si_code == SI_KERNEL`) already reached
//! every process of the foreground group, the command included when it shares
//! calib's group; the loop then does not send it a second time.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

use rustix::fs::OFlags;
use rustix::io::FdFlags;
use rustix::process::Signal;

use crate::error::{Error, Result};

/// Signals that ask calib to stop.
pub(crate) const STOP_SIGNALS: [i32; 4] =
    [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];
/// Signals forwarded without stopping.
pub(crate) const PASS_SIGNALS: [i32; 2] = [libc::SIGUSR1, libc::SIGUSR2];

static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
static PENDING: AtomicU64 = AtomicU64::new(0);
static FROM_TERMINAL: AtomicU64 = AtomicU64::new(0);

#[cfg(target_os = "linux")]
const SI_KERNEL: i32 = libc::SI_KERNEL;
#[cfg(not(target_os = "linux"))]
const SI_KERNEL: i32 = i32::MIN;

/// `XFSZ`: nothing to do, the write that went past the limit fails.
extern "C" fn on_file_size_limit(_sig: libc::c_int) {}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // Only async-signal-safe work: atomics and write(2); errno is preserved.
    let saved = errno();
    let bit = 1u64 << (sig as u64 & 63);
    // SAFETY: the kernel passes a valid siginfo_t with SA_SIGINFO.
    if !info.is_null() && unsafe { (*info).si_code } == SI_KERNEL {
        FROM_TERMINAL.fetch_or(bit, Ordering::SeqCst);
    }
    PENDING.fetch_or(bit, Ordering::SeqCst);
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = 1u8;
        // SAFETY: writing one byte from a valid buffer; the pipe is non-blocking,
        // so a full pipe (already holding a wake-up) just drops this one.
        unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    }
    set_errno(saved);
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[cfg(target_os = "linux")]
fn set_errno(value: i32) {
    // SAFETY: __errno_location returns this thread's errno.
    unsafe { *libc::__errno_location() = value }
}
#[cfg(not(target_os = "linux"))]
fn set_errno(_value: i32) {}

/// One received signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Received {
    pub(crate) signal: i32,
    /// Sent by the terminal to the whole foreground process group.
    pub(crate) from_terminal: bool,
}

/// The installed handlers; dropping it restores the previous ones.
pub(crate) struct SignalGuard {
    wake_read: OwnedFd,
    _wake_write: OwnedFd,
    previous: Vec<(i32, libc::sigaction)>,
}

impl SignalGuard {
    pub(crate) fn install() -> Result<SignalGuard> {
        let (read, write) =
            rustix::pipe::pipe().map_err(|e| Error::io("cannot create a pipe", e.into()))?;
        for fd in [&read, &write] {
            set_flags(fd);
        }
        WAKE_FD.store(write.as_raw_fd(), Ordering::SeqCst);
        let mut previous = Vec::new();
        for sig in STOP_SIGNALS
            .iter()
            .chain(&PASS_SIGNALS)
            .chain(&[libc::SIGCHLD])
        {
            // SAFETY: a zeroed sigaction with our handler and an empty mask is valid.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART | libc::SA_NOCLDSTOP;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(*sig, &action, &mut old) != 0 {
                    return Err(Error::io(
                        "cannot install a signal handler",
                        std::io::Error::last_os_error(),
                    ));
                }
                previous.push((*sig, old));
            }
        }
        // SAFETY: as above, with a handler that touches nothing.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_file_size_limit as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGXFSZ, &action, &mut old) == 0 {
                if old.sa_sigaction == libc::SIG_IGN {
                    // Ignored already (by whoever started calib): the write
                    // fails all the same, and the command keeps inheriting
                    // the ignore, as it did before calib.
                    libc::sigaction(libc::SIGXFSZ, &old, std::ptr::null_mut());
                } else {
                    previous.push((libc::SIGXFSZ, old));
                }
            }
        }
        Ok(SignalGuard {
            wake_read: read,
            _wake_write: write,
            previous,
        })
    }

    /// The descriptor to poll: readable when a signal arrived.
    pub(crate) fn wake_fd(&self) -> BorrowedFd<'_> {
        self.wake_read.as_fd()
    }

    /// Empties the wake-up pipe and returns the signals received since the last
    /// call (`CHLD` included), in signal-number order.
    pub(crate) fn take(&self) -> Vec<Received> {
        let mut buf = [0u8; 64];
        // Until the pipe is empty (EAGAIN) or fails.
        while rustix::io::read(&self.wake_read, &mut buf).is_ok_and(|n| n > 0) {}
        let pending = PENDING.swap(0, Ordering::SeqCst);
        let terminal = FROM_TERMINAL.swap(0, Ordering::SeqCst);
        (1..64i32)
            .filter(|s| pending & (1u64 << s) != 0)
            .map(|s| Received {
                signal: s,
                from_terminal: terminal & (1u64 << s) != 0,
            })
            .collect()
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        WAKE_FD.store(-1, Ordering::SeqCst);
        for (sig, old) in &self.previous {
            // SAFETY: restoring the action saved at install time.
            unsafe { libc::sigaction(*sig, old, std::ptr::null_mut()) };
        }
    }
}

/// Non-blocking, so that neither the handler nor [`SignalGuard::take`] can
/// hang on the pipe; close-on-exec, so that commands do not inherit it.
fn set_flags(fd: &OwnedFd) {
    if let Ok(flags) = rustix::fs::fcntl_getfl(fd) {
        let _ = rustix::fs::fcntl_setfl(fd, flags | OFlags::NONBLOCK);
    }
    let _ = rustix::io::fcntl_setfd(fd, FdFlags::CLOEXEC);
}

/// The signals calib sends to a command (those it forwards, and `KILL` and
/// `CONT` when it stops one) as rustix's type; `None` for any other number.
pub(crate) fn to_signal(sig: i32) -> Option<Signal> {
    [
        Signal::TERM,
        Signal::INT,
        Signal::HUP,
        Signal::QUIT,
        Signal::USR1,
        Signal::USR2,
        Signal::KILL,
        Signal::CONT,
    ]
    .into_iter()
    .find(|s| s.as_raw() == sig)
}

/// `TERM`, `KILL`, ...; other numbers as digits.
pub(crate) fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "HUP",
        libc::SIGINT => "INT",
        libc::SIGQUIT => "QUIT",
        libc::SIGILL => "ILL",
        libc::SIGTRAP => "TRAP",
        libc::SIGABRT => "ABRT",
        libc::SIGBUS => "BUS",
        libc::SIGFPE => "FPE",
        libc::SIGKILL => "KILL",
        libc::SIGUSR1 => "USR1",
        libc::SIGSEGV => "SEGV",
        libc::SIGUSR2 => "USR2",
        libc::SIGPIPE => "PIPE",
        libc::SIGALRM => "ALRM",
        libc::SIGTERM => "TERM",
        libc::SIGCHLD => "CHLD",
        libc::SIGCONT => "CONT",
        libc::SIGSTOP => "STOP",
        libc::SIGTSTP => "TSTP",
        libc::SIGXCPU => "XCPU",
        libc::SIGXFSZ => "XFSZ",
        libc::SIGSYS => "SYS",
        _ => return sig.to_string(),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(signal_name(libc::SIGTERM), "TERM");
        assert_eq!(signal_name(libc::SIGKILL), "KILL");
        assert_eq!(signal_name(40), "40");
    }

    #[test]
    fn every_signal_calib_sends_has_a_rustix_signal() {
        for sig in STOP_SIGNALS
            .iter()
            .chain(&PASS_SIGNALS)
            .chain(&[libc::SIGKILL, libc::SIGCONT])
        {
            assert_eq!(to_signal(*sig).map(|s| s.as_raw()), Some(*sig));
        }
        assert_eq!(to_signal(libc::SIGSEGV), None);
    }
}
