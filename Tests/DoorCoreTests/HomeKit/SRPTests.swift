import DoorSystem
import XCTest
@testable import DoorCore

/// SRP-6a's server side against RFC 5054's test vector (appendix B: the 1024-bit group, SHA-1,
/// "alice" and "password123"), so the equations are the standard's; HomeKit's parameters (the
/// 3072-bit group, SHA-512) are the same code with another group and hash.
final class SRPTests: XCTestCase {
    let crypto = LibCrypto()

    static let n1024 = Hex.constant("""
        EEAF0AB9ADB38DD69C33F80AFA8FC5E86072618775FF3C0B9EA2314C9C256576D674DF7496EA81D3383B4813D692C6E0\
        E0D5D8E250B98BE48E495C1D6089DAD15DC7D7B46154D6B6CE8EF4AD69B15D4982559B297BCF1885C529F566660E57EC\
        68EDBC3C05726CC02FD4CBF4976EAA9AFD5138FE8376435B9FC61D2FC0EB06E3
        """)

    func server() -> SRPServer {
        SRPServer(group: SRPGroup(modulus: SRPTests.n1024, generator: [2]), username: "alice", password: "password123",
                  salt: Hex.constant("BEB25379D1A8581EB5A727673A2441EE"),
                  secret: Hex.constant("E487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20"),
                  crypto: crypto, hash: { [crypto] in crypto.sha1($0) })
    }

    static let clientA = Hex.constant("""
        61D5E490F6F1B79547B0704C436F523DD0E560F0C64115BB72557EC44352E8903211C04692272D8B2D1A5358A2CF1B6E\
        0BFCF99F921530EC8E39356179EAE45E42BA92AEACED825171E1E8B9AF6D9C03E1327F44BE087EF06530E69F66615261\
        EEF54073CA11CF5858F0EDFDFE15EFEAB349EF5D76988A3672FAC47B0769447B
        """)

    func testTheRFC5054VectorFromMultiplierToPremasterSecret() {
        let s = server()
        XCTAssertEqual(s.multiplier, Hex.constant("7556AA045AEF2CDD07ABAF0F665C3E818913186F"), "k")
        XCTAssertEqual(s.verifier, Hex.constant("""
            7E273DE8696FFC4F4E337D05B4B375BEB0DDE1569E8FA00A9886D8129BADA1F1822223CA1A605B530E379BA4729FDC59\
            F105B4787E5186F5C671085A1447B52A48CF1970B4FB6F8400BBF4CEBFBB168152E08AB5EA53D15C1AFF87B2B9DA6E04\
            E058AD51CC72BFC9033B564E26480D78E955A5E29E7AB245DB2BE315E2099AFB
            """), "v")
        XCTAssertEqual(s.publicKey, Hex.constant("""
            BD0C61512C692C0CB6D041FA01BB152D4916A1E77AF46AE105393011BAF38964DC46A0670DD125B95A981652236F99D9\
            B681CBF87837EC996C6DA04453728610D0C6DDB58B318885D7D82C7F8DEB75CE7BD4FBAA37089E6F9C6059F388838E7A\
            00030B331EB76840910440B1B27AAEAEEB4012B7D7665238A8E3FB004B117B58
            """), "B")
        XCTAssertEqual(s.scrambler(clientPublicKey: SRPTests.clientA), Hex.constant("CE38B9593487DA98554ED47D70A7AE5F462EF019"), "u")
        XCTAssertEqual(s.premasterSecret(clientPublicKey: SRPTests.clientA), Hex.constant("""
            B0DC82BABCF30674AE450C0287745E7990A3381F63B387AAF271A10D233861E359B48220F7C4693C9AE12B0A6F67809F\
            0876E2D013800D6C41BB59B6D5979B5C00A172B4A2A5903A0BDCAF8A709585EB2AFAFA8F3499B200210DCC1F10EB3394\
            3CD67FC88A2F39A4BE5BEC4EC0A3212DC346D7E474B29EDE8A469FFECA686E5A
            """), "S")
    }

    /// An A of zero mod N (0, N, 2N) would make the premaster secret 0 for anyone: refused.
    func testAPublicKeyOfZeroModNIsRefused() {
        let s = server()
        XCTAssertNil(s.verify(clientPublicKey: [0], proof: [UInt8](repeating: 0, count: 20)))
        XCTAssertNil(s.verify(clientPublicKey: SRPTests.n1024, proof: [UInt8](repeating: 0, count: 20)))
        XCTAssertNil(s.verify(clientPublicKey: [], proof: []))
    }

    /// The proof a client with the right password sends is accepted (M1 over the same values the
    /// server hashes), and any change to it is not.
    func testTheRightProofIsAcceptedAndAWrongOneIsNot() throws {
        let s = server()
        let premaster = try XCTUnwrap(s.premasterSecret(clientPublicKey: SRPTests.clientA))
        let key = crypto.sha1(premaster)
        let groupHash = zip(crypto.sha1(SRPTests.n1024), crypto.sha1([2])).map { $0 ^ $1 }
        let proof = crypto.sha1(groupHash + crypto.sha1(Array("alice".utf8)) + s.salt + SRPTests.clientA + s.publicKey + key)
        let verified = try XCTUnwrap(s.verify(clientPublicKey: SRPTests.clientA, proof: proof))
        XCTAssertEqual(verified.sessionKey, key)
        XCTAssertEqual(verified.proof, crypto.sha1(SRPTests.clientA + proof + key))
        var wrong = proof
        wrong[0] ^= 1
        XCTAssertNil(s.verify(clientPublicKey: SRPTests.clientA, proof: wrong))
    }

    func testTheHomeKitGroupIsRFC5054s3072BitGroup() {
        let g = SRPGroup.rfc5054Group3072
        XCTAssertEqual(g.modulus.count, 384)
        XCTAssertEqual(g.generator, [5])
        XCTAssertEqual(Array(g.modulus.prefix(8)), [UInt8](repeating: 0xFF, count: 8))
        XCTAssertEqual(Array(g.modulus.suffix(8)), [UInt8](repeating: 0xFF, count: 8))
        // k = H(N | PAD(g)) with SHA-512 is the constant every HomeKit controller uses.
        let s = SRPServer(username: "Pair-Setup", password: "123-45-679", salt: [UInt8](repeating: 1, count: 16),
                          secret: [UInt8](repeating: 2, count: 32), crypto: crypto)
        XCTAssertEqual(s.multiplier, Hex.constant("""
            a9c2e2559bf0ebb53f0cbbf62282906bede7f2182f00678211fbd5bde5b285033a4993503b87397f9be5ec02080fedbc\
            0835587ad039060879b8621e8c3659e0
            """))
    }
}
