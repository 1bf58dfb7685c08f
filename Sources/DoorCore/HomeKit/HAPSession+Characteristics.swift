/// Reading and writing characteristics (`GET` and `PUT /characteristics`): values come from the
/// doors' views, subscriptions are the session's, and writes that move something become
/// `DoorRequest`s whose verdicts make the answer; a write never acts on a door itself.
extension HAPSession {
    /// `GET /characteristics?id=1.9,1.10[&ev=1]`: 200 with every value, or 207 when any failed.
    mutating func read(_ r: HTTPRequest, _ turn: Turn) {
        guard let ids = r.queryValue("id").flatMap(HAPCharacteristicID.list) else {
            return respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
        }
        let withEv = r.queryValue("ev") == "1"
        let views = turn.accessory.views
        var failed = false
        let items: [JSONValue] = ids.map { id in
            var members: [(String, JSONValue)] = [("aid", .number(Int64(id.aid))), ("iid", .number(Int64(id.iid)))]
            guard let c = turn.accessory.database.characteristic(id) else {
                failed = true
                return .object(members + [("status", .number(Int64(HAPStatus.doesNotExist.rawValue)))])
            }
            guard c.readable else {
                failed = true
                return .object(members + [("status", .number(Int64(HAPStatus.writeOnly.rawValue)))])
            }
            members.append(("value", c.value(among: views)))
            if withEv { members.append(("ev", .bool(subscriptions.contains(id)))) }
            return .object(members)
        }
        let body = failed ? items.map { item -> JSONValue in
            guard case .object(let m) = item, item["status"] == nil else { return item }
            return .object(m + [("status", .number(0))])
        } : items
        respond(HTTPResponse(status: failed ? 207 : 200, contentType: "application/hap+json",
                             body: Array(JSONValue.object([("characteristics", .array(body))]).serialized.utf8)))
    }

    /// `PUT /characteristics`: subscriptions (`ev`) take effect at once; writes that ask
    /// something of a door go out as requests and are answered once judged (`judged`). A
    /// timed write (`pid`) counts only with the pid `PUT /prepare` announced, before it expires.
    mutating func write(_ r: HTTPRequest, _ turn: Turn) {
        guard let body = parse(r.body), let list = body["characteristics"]?.arrayValue else {
            return respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
        }
        if let pid = body["pid"]?.intValue {
            guard let p = prepared, p.pid == UInt64(bitPattern: pid), turn.now <= p.until else {
                prepared = nil
                return respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
            }
            prepared = nil
        }
        var statuses: [(HAPCharacteristicID, HAPStatus)] = []
        var writes: [(HAPCharacteristicID, HAPCharacteristic, Int)] = []
        var requests: [DoorRequest] = []
        for item in list {
            guard let aid = item["aid"]?.intValue, let iid = item["iid"]?.intValue else { continue }
            let id = HAPCharacteristicID(aid: Int(aid), iid: Int(iid))
            guard let c = turn.accessory.database.characteristic(id) else { statuses.append((id, .doesNotExist)); continue }
            if let ev = item["ev"]?.boolValue ?? item["ev"]?.intValue.map({ $0 != 0 }) {
                guard c.notifies else { statuses.append((id, .notificationNotSupported)); continue }
                if ev { subscriptions.insert(id) } else { subscriptions.remove(id) }
            }
            guard let value = item["value"] else {
                statuses.append((id, item["ev"] == nil ? .invalidValue : .success))
                continue
            }
            guard c.writable else { statuses.append((id, .readOnly)); continue }
            let number = value.intValue ?? value.boolValue.map { $0 ? 1 : 0 }
            switch c {
            case .targetDoorState(let door):
                guard let n = number, n == 0 || n == 1 else { statuses.append((id, .invalidValue)); continue }
                // A write that repeats the target moves nothing (`HAPDoorView.move(toTarget:)`).
                guard let move = turn.accessory.views[door].move(toTarget: Int(n)) else { statuses.append((id, .success)); continue }
                writes.append((id, c, Int(n)))
                requests.append(request(.move(move, door: door)))
            case .lightOn(let door):
                guard let n = number, n == 0 || n == 1 else { statuses.append((id, .invalidValue)); continue }
                writes.append((id, c, Int(n)))
                requests.append(request(.light(n == 1, door: door)))
            case .lockTargetState(let door):
                guard let n = number, n == 0 || n == 1 else { statuses.append((id, .invalidValue)); continue }
                writes.append((id, c, Int(n)))
                requests.append(request(.remotes(locked: n == 1, door: door)))
            case .identify:
                requests.append(request(.identify(door: 0)))
                writes.append((id, c, 1))
            default:
                statuses.append((id, .readOnly))
            }
        }
        guard !requests.isEmpty else { return answerWrites(statuses) }
        waiting = (writes, statuses)
        out.requests += requests
    }

    /// 204 when every item succeeded, else 207 with each item's status.
    mutating func answerWrites(_ statuses: [(HAPCharacteristicID, HAPStatus)]) {
        if statuses.allSatisfy({ $0.1 == .success }) { return respond(HTTPResponse(status: 204)) }
        let items: [JSONValue] = statuses.map {
            .object([("aid", .number(Int64($0.0.aid))), ("iid", .number(Int64($0.0.iid))), ("status", .number(Int64($0.1.rawValue)))])
        }
        respond(HTTPResponse(status: 207, contentType: "application/hap+json",
                             body: Array(JSONValue.object([("characteristics", .array(items))]).serialized.utf8)))
    }
}
