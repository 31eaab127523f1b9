/// What a thread was doing when the report was taken, judged from the symbols of its frames.
public struct ThreadActivity: Sendable, Hashable {
    /// The kind of activity.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Blocked acquiring a mutex, unfair lock, `@synchronized`, read-write lock or `dispatch_once`.
        case lock
        /// Blocked on a semaphore or a dispatch group.
        case semaphore
        /// Blocked in `dispatch_sync` (or a synchronous perform) until another queue runs the block.
        case dispatchSync = "dispatch-sync"
        /// Blocked on a condition variable.
        case condition
        /// Waiting for the network: synchronous requests, DNS, sockets.
        case networkIO = "network-io"
        /// Waiting for a database (SQLite, Core Data).
        case database
        /// In a file-system call.
        case fileIO = "file-io"
        /// Waiting for a synchronous IPC reply.
        case ipc
        /// Sleeping on purpose.
        case sleep
        /// Idle in its run loop, waiting for events.
        case idle
        /// Running code (not blocked).
        case busy
        /// No symbols to judge from.
        case unknown
    }

    /// The kind of activity.
    public var kind: Kind
    /// Index of the blocking primitive's frame (`__psynch_mutexwait`, `semaphore_wait_trap`…).
    public var waitFrame: Int?
    /// Index of the first frame past the primitives: the code that waited (or, when busy, the
    /// top frame).
    public var siteFrame: Int?
    /// Index of the frame that shows the domain (a network, database or file API).
    public var domainFrame: Int?
    /// Index of the first Foundation/UIKit-level API frame past the site (e.g. `-[NSDateFormatter …]`).
    public var apiFrame: Int?
    /// Index of the first frame in the app's own code.
    public var appFrame: Int?

    /// A phrase for titles: "waited on a lock", "was busy on the CPU"…
    public var phrase: String {
        switch kind {
        case .lock: return "waited on a lock"
        case .semaphore: return "waited on a semaphore"
        case .dispatchSync: return "waited in dispatch_sync for another queue"
        case .condition: return "waited on a condition variable"
        case .networkIO: return "waited for the network"
        case .database: return "waited for the database"
        case .fileIO: return "waited for file I/O"
        case .ipc: return "waited for a synchronous IPC reply"
        case .sleep: return "was sleeping"
        case .idle: return "was idle in its run loop"
        case .busy: return "was busy on the CPU"
        case .unknown: return "was doing something the report's symbols do not show"
        }
    }

    /// Whether the thread is blocked waiting for something.
    public var isBlocked: Bool {
        switch kind {
        case .lock, .semaphore, .dispatchSync, .condition, .networkIO, .database, .fileIO, .ipc, .sleep: return true
        case .idle, .busy, .unknown: return false
        }
    }
}

/// Judges ``ThreadActivity`` from frame symbols.
public enum ThreadActivityAnalyzer {
    /// The activity of `thread` in `report`.
    public static func analyze(_ thread: ThreadRecord, in report: CrashReport) -> ThreadActivity {
        let frames = thread.frames.filter { !$0.isInlined }
        var activity = ThreadActivity(kind: .unknown)
        guard !frames.isEmpty else { return activity }
        let symbols = frames.map { $0.symbol.map(FunctionName.base) }
        let window = min(frames.count, 12)

        var primitive: ThreadActivity.Kind?
        var lastPrimitive: Int?
        var seen: Set<ThreadActivity.Kind> = []
        for index in 0..<window {
            guard let symbol = symbols[index], let kind = primitiveKind(symbol) else {
                if lastPrimitive != nil { break }
                continue
            }
            if activity.waitFrame == nil { activity.waitFrame = index }
            seen.insert(kind)
            lastPrimitive = index
        }
        // The outermost meaning wins: `__ulock_wait` under `_dispatch_sync_f_slow` is a sync,
        // `semaphore_wait_trap` under a group wait is a semaphore.
        primitive = [ThreadActivity.Kind.dispatchSync, .semaphore, .condition, .sleep, .lock, .ipc].first(where: seen.contains)
        if let lastPrimitive { activity.siteFrame = lastPrimitive + 1 < frames.count ? lastPrimitive + 1 : lastPrimitive }

        let domainWindow = min(frames.count, 40)
        var network: Int?
        var database: Int?
        var file: Int?
        var runLoop = false
        for index in 0..<domainWindow {
            guard let symbol = symbols[index] else { continue }
            if network == nil, Patterns.matches(symbol, Patterns.network) { network = index }
            if database == nil, Patterns.matches(symbol, Patterns.database) { database = index }
            if file == nil, Patterns.matches(symbol, Patterns.fileAPI) || index <= 2 && Patterns.fileCalls.contains(symbol) {
                file = index
            }
            if index < 8, symbol == "__CFRunLoopServiceMachPort" || symbol == "CFRunLoopRunSpecific" && primitive == .ipc {
                runLoop = true
            }
        }
        if primitive == .ipc, runLoop {
            activity.kind = .idle
        } else if let network {
            activity.kind = .networkIO
            activity.domainFrame = network
        } else if let database {
            activity.kind = .database
            activity.domainFrame = database
        } else if let file, primitive == nil || primitive == .lock && file <= (activity.waitFrame ?? 0) + 1 {
            activity.kind = .fileIO
            activity.domainFrame = file
            activity.siteFrame = activity.siteFrame ?? file
        } else if let primitive {
            activity.kind = primitive
        } else if symbols[0] != nil || report.isInApp(frames[0]) {
            activity.kind = .busy
            activity.siteFrame = 0
        }

        // The app frame that led to the wait, and the framework API between it and the wait
        // (frames below the app's code, like UIApplicationMain, are not what it called).
        let start = min(activity.siteFrame ?? 0, frames.count - 1)
        activity.appFrame = frames.indices.dropFirst(start).first { report.isInApp(frames[$0]) }
        let end = activity.appFrame ?? frames.count
        activity.apiFrame = (start..<end).first { index in symbols[index].map(Patterns.isFrameworkAPI) ?? false }
        return activity
    }

    /// Frame indices refer to frames without inlined entries; this maps them back to the
    /// thread's own `frames` indices.
    public static func frameIndex(_ index: Int, in thread: ThreadRecord) -> Int {
        var seen = -1
        for (position, frame) in thread.frames.enumerated() where !frame.isInlined {
            seen += 1
            if seen == index { return position }
        }
        return index
    }

    static func primitiveKind(_ symbol: String) -> ThreadActivity.Kind? {
        if Patterns.lock.contains(symbol) || Patterns.matches(symbol, Patterns.lockPrefixes) { return .lock }
        if Patterns.semaphore.contains(symbol) || Patterns.matches(symbol, Patterns.semaphorePrefixes) { return .semaphore }
        if Patterns.dispatchSync.contains(symbol) || Patterns.matches(symbol, Patterns.dispatchSyncPrefixes) { return .dispatchSync }
        if Patterns.condition.contains(symbol) || Patterns.matches(symbol, Patterns.conditionPrefixes) { return .condition }
        if Patterns.sleep.contains(symbol) || Patterns.matches(symbol, Patterns.sleepPrefixes) { return .sleep }
        if Patterns.ipc.contains(symbol) || Patterns.matches(symbol, Patterns.ipcPrefixes) { return .ipc }
        if Patterns.ulock.contains(symbol) { return .lock }
        return nil
    }
}

/// Symbol tables for ``ThreadActivityAnalyzer``.
enum Patterns {
    static let lock: Set<String> = [
        "__psynch_mutexwait", "_pthread_mutex_firstfit_lock_wait", "_pthread_mutex_firstfit_lock_slow",
        "_pthread_mutex_lock_wait", "_pthread_mutex_lock_slow", "pthread_mutex_lock", "_os_unfair_lock_lock_slow",
        "os_unfair_lock_lock", "os_unfair_lock_lock_with_options", "os_unfair_recursive_lock_lock_with_options",
        "_os_nospin_lock_lock_slow", "objc_sync_enter", "-[NSLock lock]", "-[NSRecursiveLock lock]",
        "-[NSLock lockBeforeDate:]", "__psynch_rw_rdlock", "__psynch_rw_wrlock", "pthread_rwlock_rdlock",
        "pthread_rwlock_wrlock", "_pthread_rwlock_lock_slow", "std::__1::mutex::lock()", "std::__1::recursive_mutex::lock()",
        "std::mutex::lock()", "OSSpinLockLock", "_OSSpinLockLockSlow", "_dispatch_once_wait", "_dispatch_once_f_slow",
        "swift_once", "NSLock.lock()", "NSRecursiveLock.lock()", "_os_unfair_lock_lock_slow_with_options",
        "_objc_sync_enter_kind",
    ]
    static let lockPrefixes = ["std::__1::unique_lock<", "std::__1::lock_guard<", "OSAllocatedUnfairLock.", "-[NSLock ", "Mutex.",
                               "icu::umtx_lock", "umtx_lock", "os_unfair_lock_lock", "pthread_mutex_lock"]
    /// `__ulock_wait` backs unfair locks, dispatch_once and dispatch sync waits alike; the
    /// frames above it decide.
    static let ulock: Set<String> = ["__ulock_wait", "__ulock_wait2"]
    static let semaphore: Set<String> = [
        "semaphore_wait_trap", "semaphore_timedwait_trap", "_dispatch_sema4_wait", "_dispatch_sema4_timedwait",
        "_dispatch_semaphore_wait_slow", "dispatch_semaphore_wait", "_dispatch_group_wait_slow", "dispatch_group_wait",
        "OS_dispatch_semaphore.wait(timeout:)", "OS_dispatch_semaphore.wait()", "OS_dispatch_group.wait(timeout:)",
        "OS_dispatch_group.wait()", "DispatchSemaphore.wait()", "DispatchSemaphore.wait(timeout:)",
    ]
    static let semaphorePrefixes = ["OS_dispatch_semaphore.wait", "DispatchSemaphore.wait", "DispatchGroup.wait"]
    static let dispatchSync: Set<String> = [
        "__DISPATCH_WAIT_FOR_QUEUE__", "_dispatch_sync_f_slow", "_dispatch_sync_wait", "_dispatch_barrier_sync_f_slow",
        "_dispatch_thread_event_wait_slow", "dispatch_sync", "dispatch_barrier_sync", "_dispatch_sync_f",
        "dispatch_sync_f", "_dispatch_async_and_wait_f", "dispatch_async_and_wait",
    ]
    static let dispatchSyncPrefixes = ["OS_dispatch_queue.sync", "DispatchQueue.sync", "-[NSObject(NSThreadPerformAdditions) performSelector",
                                       "-[NSObject(NSThreadPerformAdditions) performSelectorOnMainThread"]
    static let condition: Set<String> = [
        "__psynch_cvwait", "_pthread_cond_wait", "pthread_cond_wait", "pthread_cond_timedwait", "-[NSCondition wait]",
        "-[NSCondition waitUntilDate:]", "-[NSConditionLock lockWhenCondition:]", "NSCondition.wait()",
    ]
    static let conditionPrefixes = ["std::__1::condition_variable::wait", "std::condition_variable::wait"]
    static let sleep: Set<String> = ["__semwait_signal", "nanosleep", "usleep", "sleep", "+[NSThread sleepForTimeInterval:]",
                                     "+[NSThread sleepUntilDate:]", "mach_wait_until"]
    static let sleepPrefixes = ["static NSThread.sleep", "Thread.sleep", "static Thread.sleep"]
    static let ipc: Set<String> = ["mach_msg_trap", "mach_msg2_trap", "mach_msg", "mach_msg2_internal", "mach_msg_overwrite",
                                   "xpc_connection_send_message_with_reply_sync", "_xpc_send_serializer"]
    static let ipcPrefixes = ["-[NSXPCConnection _sendInvocation", "xpc_connection_send_message_with_reply_sync"]

    static let network = [
        "CFURLConnectionSendSynchronousRequest", "sendSynchronousRequest", "initWithContentsOfURL", "dataWithContentsOfURL",
        "stringWithContentsOfURL", "contentsOf:", "getaddrinfo", "gethostbyname", "gethostbyaddr", "getnameinfo",
        "SCNetworkReachabilityGetFlags", "CFHostStartInfoResolution", "SSLHandshake", "nw_connection_", "tcp_connection_",
        "__recvfrom", "__sendto", "__connect", "NSURLSession", "URLSession", "CFNetwork",
    ]
    static let database = [
        "sqlite3_step", "sqlite3_exec", "sqlite3_prepare", "unixSync", "unixRead", "unixWrite", "sqlite3VdbeExec",
        "sqlite3BtreeCommitPhaseOne", "-[NSManagedObjectContext executeFetchRequest:error:]", "-[NSManagedObjectContext save:]",
        "NSSQLCore", "NSSQLiteConnection", "NSMigrationManager", "_NSSQLiteStoreMigrator", "-[NSPersistentStoreCoordinator",
        "-[NSPersistentContainer loadPersistentStores", "NSManagedObjectContext.fetch", "NSManagedObjectContext.save", "GRDB.",
        "Realm", "FMDatabase",
    ]
    static let fileAPI = [
        "-[NSData(NSData) writeToFile", "-[NSData(NSData) writeToURL", "-[NSData initWithContentsOfFile", "dataWithContentsOfFile",
        "-[NSFileManager", "NSFileCoordinator", "+[NSKeyedUnarchiver", "Data.write(to:", "FileManager.", "NSFileHandle",
        "-[NSString writeToFile", "initWithContentsOfFile", "_CFURLCreateDataAndPropertiesFromResource", "CFURLCopyResourcePropertyForKey",
    ]
    static let fileCalls: Set<String> = [
        "read", "__read_nocancel", "pread", "__pread_nocancel", "write", "__write_nocancel", "pwrite", "__pwrite_nocancel",
        "fsync", "__fsync", "fcntl", "__fcntl", "open", "__open", "__open_nocancel", "openat", "__openat", "close",
        "__close_nocancel", "stat", "stat64", "lstat", "fstat", "__getdirentries64", "getattrlist", "__getattrlist",
        "getattrlistbulk", "fgetattrlist", "unlink", "rename", "mkdir", "readdir", "flock", "copyfile", "clonefile",
        "msync", "ftruncate", "__fcntl_nocancel", "fcntl$NOCANCEL",
    ]

    /// Whether `symbol` contains any of `needles`.
    static func matches(_ symbol: String, _ needles: [String]) -> Bool {
        needles.contains(where: { symbol.contains($0) })
    }

    /// A Foundation, UIKit or other framework API a developer would recognize: an Objective-C
    /// method of an `NS`/`UI`/`CF` class, or a public CF/C function.
    static func isFrameworkAPI(_ symbol: String) -> Bool {
        for prefix in ["-[NS", "+[NS", "-[UI", "+[UI", "-[CA", "-[AV", "-[__NS", "CFDateFormatter", "CFNumberFormatter",
                       "CFURL", "NSDateFormatter", "DateFormatter", "NSLocale", "-[CL", "-[WK", "-[MK"] where symbol.hasPrefix(prefix) {
            return true
        }
        return false
    }
}
