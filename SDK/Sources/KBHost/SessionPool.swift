/// Keyboards switched away keep their process, as on iOS (so a leak across
/// show/hide cycles is caught by the budget), but only so many: past the
/// limit, the least recently used one is ended.
public final class SessionPool {
    public let limit: Int
    private var sessions: [String: KeyboardSession] = [:]
    /// Identifiers, least recently used first.
    private var order: [String] = []

    public init(limit: Int = 3) { self.limit = max(1, limit) }

    public subscript(id: String) -> KeyboardSession? { sessions[id] }
    public var all: [KeyboardSession] { order.compactMap { sessions[$0] } }
    public var count: Int { sessions.count }

    /// Marks a keyboard as just used.
    public func touch(_ id: String) {
        guard sessions[id] != nil else { return }
        order.removeAll { $0 == id }
        order.append(id)
    }

    /// Adds a session; ends the least recently used ones past the limit.
    public func insert(_ session: KeyboardSession) {
        let id = session.keyboard.identifier
        sessions[id]?.close()
        sessions[id] = session
        touch(id)
        while order.count > limit {
            let oldest = order.removeFirst()
            sessions.removeValue(forKey: oldest)?.close()
        }
    }

    @discardableResult
    public func remove(_ id: String) -> KeyboardSession? {
        order.removeAll { $0 == id }
        return sessions.removeValue(forKey: id)
    }

    public func closeAll() {
        for s in sessions.values { s.close() }
        sessions = [:]
        order = []
    }
}
