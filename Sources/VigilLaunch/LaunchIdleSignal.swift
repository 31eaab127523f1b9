/// Tells the runner when the main run loop is idle, to start `idle`-phase tasks.
///
/// The runner starts the signal after the first frame is reported (and only if the graph has
/// idle tasks), runs at most one main-lane idle task per call, asks for another call with
/// ``requestTurn()`` while main-lane idle work remains, and stops the signal when every idle
/// task has settled.
public protocol LaunchIdleSignal: AnyObject, Sendable {
    /// Begins calling `handler` each time the main run loop is about to wait for events; calls
    /// come on the main thread.
    func start(_ handler: @escaping @Sendable () -> Void)
    /// Asks for one more call soon, even if nothing else wakes the run loop.
    func requestTurn()
    /// Stops the calls.
    func stop()
}
