/// A part of garaged that owns a thread or a line: started once, stopped once, its stop waiting
/// no longer than its own deadline (a press ended, a queue written, a connection closed).
protocol Service: AnyObject {
    /// For the log, when a stop overran its deadline.
    var name: String { get }
    func start()
    /// Finishes its duties and lets go; false when it had not finished within its deadline.
    @discardableResult
    func stop() -> Bool
}

/// The daemon's services as data: started in the order given (each may rely on those before
/// it), stopped in the reverse order (nothing new comes in before what serves it stops), as
/// swift-service-lifecycle's `ServiceGroup` does, on garaged's own OS threads
/// (docs/decisions.md).
struct ServiceGroup {
    let services: [any Service]

    func start() { for s in services { s.start() } }

    /// Stops each in reverse order; returns the names of those that overran their deadline.
    @discardableResult
    func stop() -> [String] {
        services.reversed().compactMap { $0.stop() ? nil : $0.name }
    }
}
