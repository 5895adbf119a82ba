//! Signals calib receives while a command runs, turned into events of the run
//! loop (the self-pipe pattern): the handler only records the signal in an
//! atomic mask and writes one byte to a pipe that the loop polls.
//!
//! Caught: `TERM`, `INT`, `HUP`, `QUIT` (requests to stop: forwarded to the
//! command, and no further run is started), `USR1`, `USR2` (forwarded only:
//! `sbatch --signal=USR1@60` warns a job before its walltime, and must not kill
//! calib by the default action), and `CHLD` (the command changed state).
//!
//! A signal the terminal sent (Ctrl-C: `si_code == SI_KERNEL`) already reached
//! every process of the foreground group, the command included when it shares
//! calib's group; the loop then does not send it a second time.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

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
    pub signal: i32,
    /// Sent by the terminal to the whole foreground process group.
    pub from_terminal: bool,
}

/// The installed handlers; dropping it restores the previous ones.
pub(crate) struct SignalGuard {
    wake_read: OwnedFd,
    _wake_write: OwnedFd,
    previous: Vec<(i32, libc::sigaction)>,
}

impl SignalGuard {
    pub(crate) fn install() -> Result<SignalGuard> {
        let mut fds = [0; 2];
        // SAFETY: pipe fills two descriptors we then own.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(Error::io(
                "cannot create a pipe",
                std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: both descriptors were just created and are owned here alone.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        for fd in [&read, &write] {
            set_flags(fd.as_raw_fd());
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
        Ok(SignalGuard {
            wake_read: read,
            _wake_write: write,
            previous,
        })
    }

    /// The descriptor to poll: readable when a signal arrived.
    pub(crate) fn wake_fd(&self) -> i32 {
        self.wake_read.as_raw_fd()
    }

    /// Empties the wake-up pipe and returns the signals received since the last
    /// call (`CHLD` included), in signal-number order.
    pub(crate) fn take(&self) -> Vec<Received> {
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reading into a valid buffer from our non-blocking pipe.
            let n = unsafe {
                libc::read(
                    self.wake_read.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                )
            };
            if n <= 0 {
                break;
            }
        }
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

fn set_flags(fd: i32) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
    }
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
}
