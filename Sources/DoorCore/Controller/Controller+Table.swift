/// Changes to the PIN table and its labels: made on a copy, saved, and only then current.
extension Controller {
    /// `A` and `Ladd`: the labels are saved first (the new slot's label, or none, so a stale
    /// name of an earlier holder can never reappear), then the table; either failing changes
    /// nothing that is shown.
    mutating func add(_ pin: PIN, label: String?, storeError: inout String?) -> [Reply] {
        var copy = table
        let slot: Int
        do { slot = try copy.add(pin) } catch { return [.error(error)] }
        var newLabels = labels
        newLabels.set(label, for: slot)
        do {
            try labelStore?.save(newLabels)
            try store.save(copy)
        } catch {
            storeError = error.description
            return [.error(.store)]
        }
        table = copy
        labels = newLabels
        return [.added(slot: slot)]
    }

    /// Applies a table change to a copy, saves it, and only then makes it current.
    mutating func change(storeError: inout String?,
                                 _ body: (inout PinTable) throws(ErrorCode) -> Reply) -> [Reply] {
        var copy = table
        let reply: Reply
        do { reply = try body(&copy) } catch { return [.error(error)] }
        do {
            try store.save(copy)
        } catch {
            storeError = error.description
            return [.error(.store)]
        }
        table = copy
        return [reply]
    }
}
