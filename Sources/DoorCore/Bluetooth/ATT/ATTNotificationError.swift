/// Why a reply record cannot become a notification: it would have to be cut to fit ATT_MTU-3,
/// and a cut reply would tell the phone something else than what happened.
public enum ATTNotificationError: Error, Equatable, Sendable {
    case tooLong(length: Int, limit: Int)
}
