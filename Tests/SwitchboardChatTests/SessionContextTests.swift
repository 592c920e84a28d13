import SwitchboardChat
import Testing

/// `session.create`'s `context`: the six known members, each a string of at
/// most 2 KiB without control characters, kept in a canonical form; anything
/// else is refused with a message that names it.
@Suite struct SessionContextTests {
    @Test func knownMembersAreKeptInTheirOrderAndEmptyOnesDropped() {
        let frame = accepted(
            #"{"type":"session.create","title":"Hi","context":{"user_agent":"Chrome","page_url":"https://shop.example/cart?x=1","referrer":"","locale":"de-DE","time_zone":"Europe/Berlin","page_title":"Cart – Shop"}}"#
        )?.frame
        #expect(
            frame
                == .sessionCreate(
                    title: "Hi",
                    context:
                        #"{"page_url":"https://shop.example/cart?x=1","page_title":"Cart – Shop","locale":"de-DE","time_zone":"Europe/Berlin","user_agent":"Chrome"}"#
                ))
        #expect(accepted(#"{"type":"session.create","context":null}"#)?.frame == .sessionCreate(title: nil))
        #expect(accepted(#"{"type":"session.create","context":{}}"#)?.frame == .sessionCreate(title: nil))
        #expect(
            accepted(#"{"type":"session.create","context":{"referrer":null}}"#)?.frame == .sessionCreate(title: nil))
        let longest = String(repeating: "é", count: 1024)  // 2048 bytes
        #expect(
            accepted(#"{"type":"session.create","context":{"page_title":"\#(longest)"}}"#)?.frame
                == .sessionCreate(title: nil, context: #"{"page_title":"\#(longest)"}"#))
    }

    @Test func anythingElseIsRefusedByName() {
        let over = String(repeating: "a", count: 2049)
        for (bad, says) in [
            (#""context":"https://shop.example""#, "must be an object"),
            (#""context":{"page_url":7}"#, "page_url must be a string"),
            (#""context":{"page_url":"\#(over)"}"#, "page_url is over 2048 bytes"),
            (#""context":{"page_title":"a\nb"}"#, "page_title must not contain control characters"),
            (#""context":{"page_title":"a\u0000b"}"#, "page_title must not contain control characters"),
            (#""context":{"ip":"10.0.0.1"}"#, "has an unknown member \"ip\""),
        ] {
            let error = refused(#"{"type":"session.create",\#(bad)}"#)
            #expect(error?.code == .badRequest, "\(bad)")
            #expect(error?.message.contains("\"context\" \(says)") == true, "\(bad): \(error?.message ?? "")")
        }
    }
}
