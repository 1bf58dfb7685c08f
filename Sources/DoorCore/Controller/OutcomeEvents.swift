extension Controller.Outcome {
    /// What the owner's history keeps of one judged request: what changed the door or the
    /// table, what a PIN holder asked for, wrong PINs and the lockouts they start, stale
    /// requests. Reads (status, list, log) and malformed requests are not events.
    /// `labelsBefore` names the slot an edit or delete changed; `labelsAfter` the slot an open
    /// or add used.
    public func requestRecords(source: String, at time: Int64, labelsBefore: Labels, labelsAfter: Labels) -> [EventRecord] {
        func event(_ kind: EventRecord.Kind, slot: Int? = nil, label: String? = nil, detail: String?) -> EventRecord {
            EventRecord(time: time, kind: kind, source: source, slot: slot, label: label, detail: detail)
        }
        var events: [EventRecord] = []
        if result == .error(.pin) {
            events.append(event(.wrongPIN, detail: command))
        } else if result == .error(.stale) {
            events.append(event(.stale, detail: command))
        } else if let decoded, slot != nil {
            let resultText = presses.isEmpty ? result.text : "pressed"
            switch decoded {
            case .open:
                events.append(event(.open, slot: slot, label: slot.flatMap { labelsAfter[$0] }, detail: resultText))
            case .close:
                events.append(event(.close, slot: slot, label: slot.flatMap { labelsAfter[$0] }, detail: resultText))
            case .add, .local(.add):
                var added: Int? = nil
                if case .added(let s) = result { added = s }
                events.append(event(.add, slot: added, label: added.flatMap { labelsAfter[$0] }, detail: result.text))
            case .edit(let slot, _):
                events.append(event(.edit, slot: slot, label: labelsBefore[slot], detail: result.text))
            case .delete(let slot):
                events.append(event(.delete, slot: slot, label: labelsBefore[slot], detail: result.text))
            case .local(.label(let slot, let name)):
                events.append(event(.label, slot: slot, label: name, detail: result.text))
            case .hold(let minutes):
                events.append(event(.hold, slot: slot, label: slot.flatMap { labelsAfter[$0] },
                                    detail: result.isError ? result.text : minutes == 0 ? "OK: ended" : "OK: \(minutes) min"))
            case .light(let on):
                events.append(event(.light, slot: slot, label: slot.flatMap { labelsAfter[$0] },
                                    detail: result.isError ? result.text : on ? "OK: on" : "OK: off"))
            case .closeAfter(let seconds):
                events.append(event(.closeAfter, slot: slot, label: slot.flatMap { labelsAfter[$0] },
                                    detail: result.isError ? result.text : seconds == 0 ? "OK: off" : "OK: \(seconds) s"))
            case .local(.doors(let target, let doors)):
                events.append(event(.doors, slot: target, label: labelsAfter[target],
                                    detail: result.isError ? result.text : "OK: " + (doors?.joined(separator: ",") ?? "every door")))
            case .local(.remotes(let locked)) where result == .error(.door):
                // Refused before any door was asked; `Controller.askRemotes` records the rest.
                events.append(event(.remotes, slot: slot, label: slot.flatMap { labelsAfter[$0] },
                                    detail: Controller.remotesDetail(locked, result, changed: false)))
            case .local(.unlock(let channel)):
                events.append(event(.unlock, slot: slot, label: slot.flatMap { labelsAfter[$0] },
                                    detail: channel.map { "\($0.rawValue) channel" } ?? "every channel"))
            default:
                break
            }
        }
        if let lockout {
            events.append(event(.lockout, detail: "\(lockout.duration.secondsRoundedUp) s after \(lockout.failures) wrong PINs"))
        }
        return events
    }
}
