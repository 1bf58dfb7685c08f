/// The Error Response codes of Core Vol 3 Part F 3.4.1.1 (Table 3.4), plus the Common Profile and
/// Service Error Codes of the Core Specification Supplement Part B that GATT servers use.
public enum ATTErrorCode: UInt8, Error, Sendable, CaseIterable {
    case invalidHandle = 0x01
    case readNotPermitted = 0x02
    case writeNotPermitted = 0x03
    case invalidPDU = 0x04
    case insufficientAuthentication = 0x05
    case requestNotSupported = 0x06
    case invalidOffset = 0x07
    case insufficientAuthorization = 0x08
    case prepareQueueFull = 0x09
    case attributeNotFound = 0x0A
    case attributeNotLong = 0x0B
    case encryptionKeySizeTooShort = 0x0C
    case invalidAttributeValueLength = 0x0D
    case unlikelyError = 0x0E
    case insufficientEncryption = 0x0F
    case unsupportedGroupType = 0x10
    case insufficientResources = 0x11
    case databaseOutOfSync = 0x12
    case valueNotAllowed = 0x13
    /// Supplement Part B 1.2: the request was refused for a reason the profile gives.
    case writeRequestRejected = 0xFC
    /// Supplement Part B 1.2: a CCCD write asked for something the characteristic cannot do
    /// (indications on a notify-only characteristic, reserved bits). BlueZ answers the same.
    case cccdImproperlyConfigured = 0xFD
    case procedureAlreadyInProgress = 0xFE
    case outOfRange = 0xFF
}
