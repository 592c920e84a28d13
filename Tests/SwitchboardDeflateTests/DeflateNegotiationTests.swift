import SwitchboardDeflate
import Testing

struct DeflateNegotiationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var offers: [String]
        var response: String?
        var parameters: DeflateParameters?
        var testDescription: String { offers.joined(separator: " | ") }
    }

    static let defaults = DeflateParameters()

    static let table: [Case] = [
        Case(offers: ["permessage-deflate"], response: "permessage-deflate", parameters: defaults),
        Case(offers: ["PerMessage-Deflate"], response: "permessage-deflate", parameters: defaults),
        // RFC 7692 7.1.2.2: a valueless client_max_window_bits only says "I support it".
        Case(
            offers: ["permessage-deflate; client_max_window_bits"], response: "permessage-deflate", parameters: defaults
        ),
        Case(
            offers: ["permessage-deflate; client_max_window_bits=10"],
            response: "permessage-deflate; client_max_window_bits=10",
            parameters: .init(clientMaxWindowBits: 10)),
        Case(
            offers: ["permessage-deflate; client_max_window_bits=\"10\""],
            response: "permessage-deflate; client_max_window_bits=10",
            parameters: .init(clientMaxWindowBits: 10)),
        Case(
            offers: ["permessage-deflate; server_max_window_bits=10"],
            response: "permessage-deflate; server_max_window_bits=10",
            parameters: .init(serverMaxWindowBits: 10)),
        Case(
            offers: ["permessage-deflate; server_max_window_bits=8"],
            response: "permessage-deflate; server_max_window_bits=8",
            parameters: .init(serverMaxWindowBits: 8)),
        Case(
            offers: ["permessage-deflate; server_no_context_takeover"],
            response: "permessage-deflate; server_no_context_takeover",
            parameters: .init(serverNoContextTakeover: true)),
        Case(
            offers: ["permessage-deflate; client_no_context_takeover"],
            response: "permessage-deflate; client_no_context_takeover",
            parameters: .init(clientNoContextTakeover: true)),
        // The offers Autobahn 13.x sends.
        Case(
            offers: ["permessage-deflate; client_no_context_takeover; client_max_window_bits"],
            response: "permessage-deflate; client_no_context_takeover",
            parameters: .init(clientNoContextTakeover: true)),
        Case(
            offers: ["permessage-deflate; client_max_window_bits; server_max_window_bits=9"],
            response: "permessage-deflate; server_max_window_bits=9",
            parameters: .init(serverMaxWindowBits: 9)),
        Case(
            offers: [
                "permessage-deflate; client_no_context_takeover; client_max_window_bits; server_max_window_bits=8, "
                    + "permessage-deflate; client_no_context_takeover; client_max_window_bits, "
                    + "permessage-deflate; client_max_window_bits"
            ],
            response: "permessage-deflate; client_no_context_takeover; server_max_window_bits=8",
            parameters: .init(clientNoContextTakeover: true, serverMaxWindowBits: 8)),
        Case(
            offers: [
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                    + "server_max_window_bits=15; client_max_window_bits=15"
            ],
            response: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                + "server_max_window_bits=15; client_max_window_bits=15",
            parameters: .init(serverNoContextTakeover: true, clientNoContextTakeover: true)),
        // RFC 7692 5.1 example: the first acceptable offer wins.
        Case(
            offers: [
                "permessage-deflate; client_max_window_bits; server_max_window_bits=10, permessage-deflate; client_max_window_bits"
            ],
            response: "permessage-deflate; server_max_window_bits=10",
            parameters: .init(serverMaxWindowBits: 10)),
        // ... and an unacceptable first offer falls through to the next one.
        Case(
            offers: ["permessage-deflate; server_max_window_bits=16, permessage-deflate; client_max_window_bits"],
            response: "permessage-deflate", parameters: defaults),
        Case(
            offers: ["x-webkit-deflate-frame, permessage-deflate"], response: "permessage-deflate", parameters: defaults
        ),
        Case(offers: ["x-custom; a=1", "permessage-deflate"], response: "permessage-deflate", parameters: defaults),
        Case(
            offers: ["  permessage-deflate  ;  server_no_context_takeover  "],
            response: "permessage-deflate; server_no_context_takeover",
            parameters: .init(serverNoContextTakeover: true)),
        // Declined offers.
        Case(offers: [], response: nil, parameters: nil),
        Case(offers: ["x-webkit-deflate-frame"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; server_max_window_bits"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; server_max_window_bits=7"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; server_max_window_bits=16"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; server_max_window_bits=08"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; server_max_window_bits=abc"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; client_max_window_bits=7"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; client_max_window_bits=\"1 0\""], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; server_no_context_takeover=true"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; client_no_context_takeover=1"], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; unknown_parameter"], response: nil, parameters: nil),
        Case(
            offers: ["permessage-deflate; server_no_context_takeover; server_no_context_takeover"],
            response: nil, parameters: nil),
        Case(
            offers: ["permessage-deflate; client_max_window_bits; client_max_window_bits=10"],
            response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; "], response: nil, parameters: nil),
        Case(offers: ["permessage-deflate; client_max_window_bits=\"10"], response: nil, parameters: nil),
    ]

    @Test(arguments: table)
    func negotiates(_ testCase: Case) {
        let result = DeflateNegotiation.negotiate(offerHeader: testCase.offers, configuration: DeflateConfiguration())
        #expect(result?.responseHeaderValue == testCase.response)
        #expect(result?.parameters == testCase.parameters)
    }

    @Test func disabledDeclinesEverything() {
        let result = DeflateNegotiation.negotiate(
            offerHeader: ["permessage-deflate"], configuration: DeflateConfiguration(enabled: false))
        #expect(result == nil)
    }

    @Test func serverPreferenceAddsNoContextTakeover() throws {
        let result = try #require(
            DeflateNegotiation.negotiate(
                offerHeader: ["permessage-deflate"], configuration: DeflateConfiguration(serverNoContextTakeover: true))
        )
        #expect(result.responseHeaderValue == "permessage-deflate; server_no_context_takeover")
        #expect(result.parameters.serverNoContextTakeover)
    }

    @Test(arguments: [
        ("permessage-deflate", "permessage-deflate; server_max_window_bits=10", 10),
        ("permessage-deflate; server_max_window_bits=12", "permessage-deflate; server_max_window_bits=10", 10),
        ("permessage-deflate; server_max_window_bits=9", "permessage-deflate; server_max_window_bits=9", 9),
    ])
    func serverWindowPreference(offer: String, response: String, bits: Int) throws {
        let result = try #require(
            DeflateNegotiation.negotiate(
                offerHeader: [offer], configuration: DeflateConfiguration(serverMaxWindowBits: 10)))
        #expect(result.responseHeaderValue == response)
        #expect(result.parameters.serverMaxWindowBits == bits)
    }
}
