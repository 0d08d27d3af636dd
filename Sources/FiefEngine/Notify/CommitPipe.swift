import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// The named pipe through which a commit wakes every other process that
/// observes the file (docs/design.md, "Across processes"): `<path>.note`
/// beside the file, or, where no FIFO can be made there, one in
/// `$XDG_RUNTIME_DIR` (else `/tmp`) named by the file's device and inode.
/// Every process opens it read-write and non-blocking (so the open never
/// waits for a peer and a write never fails for want of a reader); a commit
/// drains it and writes one byte, and each observing process's worker, which
/// watches it edge-triggered, wakes.  It holds bytes, never state: a process
/// killed at any point leaves nothing to repair.
final class CommitPipe: @unchecked Sendable {
    let fd: Int32
    /// Where the pipe is (for messages and tests).
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// The pipe of the realm file at `file`, made if needed; nil when
    /// neither place can hold one (commits then wake only this process).
    static func open(forFile file: String) -> CommitPipe? {
        if let pipe = open(at: file + ".note") { return pipe }
        guard let fallback = fallbackPath(forFile: file) else { return nil }
        return open(at: fallback)
    }

    /// The pipe at `path`, made if missing; nil if it cannot be made or
    /// opened, or `path` is something other than a FIFO.
    private static func open(at path: String) -> CommitPipe? {
        if mkfifo(path, 0o666) != 0 && errno != EEXIST { return nil }
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else {
            close(fd)
            return nil
        }
        return CommitPipe(fd: fd, path: path)
    }

    /// The pipe's place when the file's directory cannot hold a FIFO: the
    /// same for every process that opens the file, whatever path it used.
    static func fallbackPath(forFile file: String) -> String? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        var directory = "/tmp"
        if let runtime = getenv("XDG_RUNTIME_DIR"), runtime.pointee != 0 { directory = String(cString: runtime) }
        return "\(directory)/fief-\(info.st_dev)-\(info.st_ino).note"
    }

    /// Remove the pipe of the file at `file` (with the file's other files).
    static func remove(forFile file: String) {
        var info = stat()
        if lstat(file + ".note", &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO { unlink(file + ".note") }
        if let fallback = fallbackPath(forFile: file) { unlink(fallback) }
    }

    /// Wake every process watching the pipe: drain what earlier commits
    /// left (so the pipe never fills), then write one byte.  Cannot fail in
    /// a way that matters: a lost byte only delays a wake-up to the next
    /// commit, and a worker always reads the newest version.
    func signal() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(fd, $0.baseAddress, $0.count) }) == MemoryLayout.size(ofValue: buffer) {}
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }
}
