import FiefStorage
import CFiefSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The coordinator of one file in this process (docs/design.md, "Who
/// computes, who delivers"): the delivery channels of the live realms that
/// observe it, and one worker thread, started with the first channel that
/// has a notifier and stopped (joined) with the last, so a process that
/// observes nothing has no thread.  Every realm of the file holds it, and
/// its commits signal it (`didCommit`).
///
/// The worker waits with epoll on its own eventfd (this process's commits,
/// and the stop) and, edge-triggered, on the file's `CommitPipe` (other
/// processes' commits).  Each run opens one snapshot at the newest version,
/// runs every notifier of every channel to it and wakes the channels that
/// have something new; commits between two runs make one run.
public final class NotificationCenter: @unchecked Sendable {
    let environment: Environment
    private let lock = NotifyLock()
    /// The channels that have notifiers, by identity.
    private var channels: [ObjectIdentifier: DeliveryChannel] = [:]
    private var worker: Worker?
    private var pipeIfOpened: CommitPipe?
    private var pipeTried = false

    private final class WeakCenter: @unchecked Sendable {
        weak var center: NotificationCenter?
        init(_ center: NotificationCenter) { self.center = center }
    }
    private static let registry = Mutex<[ObjectIdentifier: WeakCenter]>([:])

    private init(environment: Environment) {
        self.environment = environment
    }

    deinit {
        let key = ObjectIdentifier(environment)
        NotificationCenter.registry.withLock { table in
            if table[key]?.center == nil { table[key] = nil }
        }
        lock.destroy()
    }

    /// The center of `environment`'s file in this process, made if needed.
    /// (It keeps the environment alive, so its identity names it.)
    static func center(for environment: Environment) -> NotificationCenter {
        let key = ObjectIdentifier(environment)
        var made: NotificationCenter?
        let found = registry.withLock { table -> NotificationCenter in
            if let existing = table[key]?.center { return existing }
            let center = NotificationCenter(environment: environment)
            table[key] = WeakCenter(center)
            made = center
            return center
        }
        _ = made
        return found
    }

    /// The file's pipe, opened on first use; nil for in-memory and read-only
    /// files, or where none can be made.
    private var pipe: CommitPipe? {
        if !pipeTried {
            pipeTried = true
            if !environment.isInMemory && !environment.isReadOnly {
                pipeIfOpened = CommitPipe.open(forFile: environment.path)
            }
        }
        return pipeIfOpened
    }

    /// Where the file's pipe is, if it has one (tests).
    public var pipePath: String? { lock.locked { pipe?.path } }

    /// A realm of this process committed to the file (after LMDB's commit):
    /// wake every other process through the pipe, and this one's worker.
    /// One `write` on the pipe per commit, observers or not (another
    /// process may observe); the eventfd only while a worker runs.
    func didCommit() {
        lock.locked {
            pipe?.signal()
            worker?.signal()
        }
    }

    // MARK: Channels and the worker

    func register(_ channel: DeliveryChannel) {
        lock.locked {
            channels[ObjectIdentifier(channel)] = channel
            if worker == nil { worker = Worker(center: self, pipe: pipe) }
            // A run for the new channel: it may have missed commits.
            worker?.signal()
        }
    }

    /// A run without a commit (a notifier added to a channel that has some).
    func wakeWorker() {
        lock.locked { worker?.signal() }
    }

    func unregister(_ channel: DeliveryChannel) {
        let stopped = lock.locked { () -> Worker? in
            channels[ObjectIdentifier(channel)] = nil
            guard channels.isEmpty, let running = worker else { return nil }
            worker = nil
            return running
        }
        stopped?.stop()
    }

    /// Whether a worker thread runs (tests: none without observers).
    public var hasWorker: Bool { lock.locked { worker != nil } }

    /// One run: the newest version, every channel's notifiers run to it.
    fileprivate func run() {
        let current = lock.locked { Array(channels.values) }
        if current.isEmpty { return }
        guard let snapshot = try? Snapshot(environment: environment) else { return }
        for channel in current { channel.workerReached(snapshot) }
    }

    /// The worker thread: its eventfd, its epoll set and its stop flag are
    /// its own, so a worker stopping while the next starts never takes the
    /// other's wake-ups.
    private final class Worker: @unchecked Sendable {
        let wakeFD: Int32
        let epollFD: Int32
        private let stopped = Atomic<Bool>(false)
        private var thread = pthread_t()
        private var started = false
        /// Strong while the thread runs: the center outlives its worker.
        let center: NotificationCenter

        init(center: NotificationCenter, pipe: CommitPipe?) {
            self.center = center
            wakeFD = fief_eventfd_new()
            epollFD = fief_epoll_new()
            if wakeFD >= 0 && epollFD >= 0 {
                _ = fief_epoll_watch(epollFD, wakeFD, 0)
                // Edge-triggered: the byte stays for the other processes;
                // the next commit drains it.
                if let pipe { _ = fief_epoll_watch(epollFD, pipe.fd, 1) }
            }
            let context = Unmanaged.passRetained(self).toOpaque()
            started = pthread_create(&thread, nil, { context in
                let worker = Unmanaged<Worker>.fromOpaque(context!).takeRetainedValue()
                worker.loop()
                return nil
            }, context) == 0
            if !started { Unmanaged<Worker>.fromOpaque(context).release() }
        }

        deinit {
            if wakeFD >= 0 { close(wakeFD) }
            if epollFD >= 0 { close(epollFD) }
        }

        func signal() {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }

        /// Stop and join the thread (detach it when the worker itself
        /// stops, from a wake-up callback).
        func stop() {
            stopped.store(true, ordering: .releasing)
            signal()
            guard started else { return }
            if pthread_equal(thread, pthread_self()) != 0 {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }

        private func loop() {
            var ready = [Int32](repeating: 0, count: 4)
            center.run()
            while !stopped.load(ordering: .acquiring) {
                let count = fief_epoll_wait(epollFD, &ready, -1)
                if count < 0 {
                    if errno == EINTR { continue }
                    // epoll itself failed: poll the local eventfd instead
                    // of spinning (this process's commits still wake us).
                    var entry = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
                    _ = poll(&entry, 1, 1000)
                }
                var count64: UInt64 = 0
                _ = read(wakeFD, &count64, 8)
                if stopped.load(ordering: .acquiring) { break }
                center.run()
            }
        }
    }
}
