/// What an `auto` door's opener turned out to be, and how that was known; or, while `kind` is
/// nil, that garaged is still searching its wire and what it tries now. The status record's
/// `opener.protocol` and `opener.found`, `doctor` and the gate's refusal say it.
public struct OpenerIdentity: Equatable, Sendable {
    /// The protocol found; nil while searching.
    public var kind: OpenerKind?
    /// How it was found ("an answer to GET_STATUS"), or what is tried now.
    public var how: String
    /// The device searched.
    public var device: String
    /// Read from the result kept beside the PIN table, not found by a search in this run.
    public var kept: Bool

    public init(kind: OpenerKind?, how: String, device: String, kept: Bool = false) {
        self.kind = kind
        self.how = how
        self.device = device
        self.kept = kept
    }

    /// The status record's `opener.found`: "auto: an answer to GET_STATUS", "kept: ...",
    /// "searching: ...".
    public var found: String {
        kind == nil ? "searching: \(how)" : (kept ? "kept from an earlier search (\(how))" : "found by auto: \(how)")
    }
}
