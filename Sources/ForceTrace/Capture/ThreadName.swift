import Glibc

/// Names the calling thread as the kernel shows it (`/proc/PID/task/TID/comm`,
/// `top -H`), at most 15 bytes: Foundation's `Thread.name` does not reach
/// the kernel on Linux, and the recorder's CPU bench
/// (Tests/bench/recorder_cpu.py) tells the replay's parser from the
/// recorder's own threads by these names. Written through
/// /proc/thread-self/comm, since `pthread_setname_np` needs _GNU_SOURCE,
/// which Swift's Glibc module lacks; a failure only leaves the name as it was.
func nameCurrentThread(_ name: StaticString) {
    precondition(name.utf8CodeUnitCount <= 15, "a thread name holds at most 15 bytes")
    guard let comm = try? FileDescriptor.open("/proc/thread-self/comm", O_WRONLY) else { return }
    _ = try? comm.write(name.utf8Start, count: name.utf8CodeUnitCount)
    comm.closeIgnoringErrors()
}
