/// Which handler answers which PDU, and the rules every request shares: it is decoded by its
/// own declaration (`ATTPDU`), a PDU longer than ATT_MTU breaks its format table, and a refusal
/// becomes an Error Response naming the request's opcode and the handle at fault.
extension ATTServer {
    typealias Route = @Sendable (inout ATTServer, [UInt8]) -> Output

    /// The two writes, which `handle` answers before this table: every press a phone asks for
    /// is one of them.
    static let writes: [ATTOpcode] = [ATTWriteRequest.opcode, ATTWriteCommand.opcode]

    /// Every other request's handler.
    static let routes: [ATTOpcode: Route] = [
        ATTExchangeMTURequest.opcode: request { (s, r: ATTExchangeMTURequest) in .success(s.exchangeMTU(r.clientRxMTU)) },
        ATTFindInformationRequest.opcode: request { (s, r: ATTFindInformationRequest) in s.findInformation(r.range) },
        ATTFindByTypeValueRequest.opcode: request { (s, r: ATTFindByTypeValueRequest) in
            s.findByTypeValue(r.range, type: r.type, value: r.value)
        },
        ATTReadByTypeRequest.opcode: request { (s, r: ATTReadByTypeRequest) in s.readByType(r.range, type: r.type) },
        ATTReadRequest.opcode: request { (s, r: ATTReadRequest) in s.read(r.handle) },
        ATTReadBlobRequest.opcode: request { (s, r: ATTReadBlobRequest) in s.readBlob(r.handle, offset: r.offset) },
        ATTReadMultipleRequest.opcode: request { (s, r: ATTReadMultipleRequest) in s.readMultiple(r.handles) },
        ATTReadByGroupTypeRequest.opcode: request { (s, r: ATTReadByGroupTypeRequest) in
            s.readByGroupType(r.range, groupType: r.groupType)
        },
        ATTHandleValueConfirmation.opcode: { _, pdu in
            // This server sends no indications; a stray confirmation is harmless.
            decoding(pdu) { (_: ATTHandleValueConfirmation) in Output() }
        },
    ]

    /// `routes` indexed by the opcode's byte: found without hashing.
    static let routeByOpcode: [Route?] = {
        var table = [Route?](repeating: nil, count: 256)
        for (opcode, route) in routes { table[Int(opcode.rawValue)] = route }
        return table
    }()

    /// The Write Response, encoded once: it has no fields.
    static let writeResponse = ATTWriteResponse().bytes

    /// A Write Request: not held to ATT_MTU as a whole (a value over ATT_MTU-3 is Invalid
    /// Attribute Value Length).
    mutating func writeRequest(_ pdu: ArraySlice<UInt8>) -> Output {
        let r: ATTWriteRequest
        do { r = try ATTWriteRequest.decode(pdu) } catch { return ATTServer.refused(error) }
        switch write(r.handle, r.value, permission: .write) {
        case .success(let command): return Output(response: ATTServer.writeResponse, command: command)
        case .failure(let code): return Output(response: ATTServer.error(ATTWriteRequest.self, r.handle, code))
        }
    }

    /// A Write Command: never a response; a write that fails for any reason is ignored (3.4.5.3).
    mutating func writeCommand(_ pdu: ArraySlice<UInt8>) -> Output {
        let c: ATTWriteCommand
        do { c = try ATTWriteCommand.decode(pdu) } catch { return ATTServer.refused(error) }
        return Output(command: (try? write(c.handle, c.value, permission: .writeCommand).get()) ?? nil)
    }

    /// Why a request is refused: the handle at fault (0x0000 when none) and the error code.
    struct Refusal: Error {
        var handle: UInt16
        var code: ATTErrorCode
    }

    /// The route of a request answered with one response PDU or refused.
    private static func request<P: ATTPDU>(
        _ answer: @escaping @Sendable (inout ATTServer, P) -> Result<[UInt8], Refusal>
    ) -> Route {
        { server, pdu in
            decoding(pdu) { (request: P) in
                // Any request longer than ATT_MTU breaks its format table (e.g. "Attribute Value 0
                // to ATT_MTU-7" for Find By Type Value).
                if pdu.count > Int(server.mtu) { return Output(response: error(P.self, 0, .invalidPDU), malformed: true) }
                switch answer(&server, request) {
                case .success(let response): return Output(response: response)
                case .failure(let refusal): return Output(response: error(P.self, refusal.handle, refusal.code))
                }
            }
        }
    }

    /// What `answer` makes of the PDU decoded by its declaration, or what is owed for a
    /// malformed one.
    private static func decoding<P: ATTPDU>(_ pdu: [UInt8], _ answer: (P) -> Output) -> Output {
        let request: P
        do { request = try P.decode(pdu) } catch { return refused(error) }
        return answer(request)
    }

    static func refused(_ error: ATTDecodeError) -> Output {
        Output(response: error.errorResponse?.bytes, malformed: error.isMalformed)
    }

    private static func error<P: ATTPDU>(_ request: P.Type, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        ATTErrorResponse(requestOpcode: P.opcode.rawValue, handle: handle, code: code).bytes
    }

    /// The response announces our Rx MTU; the new ATT_MTU applies after it is sent. A client MTU
    /// below 23 leaves ATT_MTU unchanged (3.4.2.2). A repeated exchange (the spec says once per
    /// connection) is recomputed the same way, so both sides keep agreeing.
    mutating func exchangeMTU(_ clientRxMTU: UInt16) -> [UInt8] {
        if clientRxMTU >= ATTServer.defaultMTU { mtu = min(clientRxMTU, serverRxMTU) }
        var response = ATTExchangeMTUResponse()
        response.serverRxMTU = serverRxMTU
        return response.bytes
    }
}
