/// A C string buffer (what a C call wrote an error or a name into) as a Swift string.
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The text of a fixed-size C char array: a struct field, which Swift sees as a tuple.
func cField<T>(_ field: T) -> String {
    withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
