// libFuzzer target for the chat protocol's client-frame decoder. Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// Any input either decodes into a frame whose fields keep the decoder's promises,
// or is refused with a protocol error that carries a short ref at most.
import SwitchboardChat

private let limits = ChatLimits(maxBodyBytes: 64)

private func isCanonicalUUID(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count == 36 else { return false }
    for (index, byte) in bytes.enumerated() {
        if [8, 13, 18, 23].contains(index) {
            if byte != UInt8(ascii: "-") { return false }
        } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)) {
            return false
        }
    }
    return true
}

private func check(_ frame: ClientFrame) {
    switch frame {
    case .hello(let token):
        precondition(!token.isEmpty, "empty token accepted")
    case .sessionCreate(let title, let context):
        precondition((title?.utf8.count ?? 0) <= 200, "title over 200 bytes accepted")
        // At most six members of 2 KiB each, escaped (\uXXXX: six bytes a character), and their keys.
        precondition((context?.utf8.count ?? 0) <= 6 * (6 * SessionContext.maxValueBytes + 16) + 2, "context unbounded")
        precondition(!(context?.utf8.contains(0) ?? false), "NUL accepted in a context")
    case .join(let session, let since):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
        precondition((since ?? 0) >= 0, "negative since_seq accepted")
    case .leave(let session), .sessionClose(let session):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
    case .send(let session, let clientID, let body, let kind, let attachments):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
        precondition(!clientID.isEmpty && clientID.utf8.count <= 128, "client_msg_id out of bounds")
        precondition(body.utf8.count <= limits.maxBodyBytes, "body over the limit accepted")
        precondition(!body.isEmpty || !attachments.isEmpty, "an empty body without attachments accepted")
        precondition(attachments.count <= ChatLimits.maxAttachments, "more than 10 attachments accepted")
        precondition(attachments.allSatisfy(isCanonicalUUID), "an attachment id not canonical")
        precondition(Set(attachments).count == attachments.count, "an attachment listed twice accepted")
        precondition(!body.utf8.contains(0) && !clientID.utf8.contains(0), "NUL accepted")
        precondition(!kind.isEmpty && kind.utf8.count <= 32, "kind out of bounds")
    case .typing(let session, _):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
    case .read(let session, let seq):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
        precondition(seq >= 0, "negative seq accepted")
    case .sessionAssign(let session, let operatorID):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
        precondition((operatorID?.utf8.count ?? 0) <= 128, "operator_id over 128 bytes accepted")
    case .sessionContact(let session, let email):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
        precondition(ContactEmail.problem(email) == nil, "an address the decoder calls invalid accepted")
    case .csat(let session, let rating, let comment):
        precondition(isCanonicalUUID(session), "session id \(session) not canonical")
        precondition((1...5).contains(rating), "a rating out of 1...5 accepted")
        precondition((comment?.utf8.count ?? 0) <= CsatAnswer.maxCommentBytes, "a comment over the limit accepted")
        precondition(comment?.isEmpty != true && !(comment?.utf8.contains(0) ?? false), "an empty or NUL comment kept")
    case .inboxSubscribe, .presenceSubscribe, .ping, .presenceSet:
        // No fields, or one the decoder can only give as an enum case.
        break
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    switch ClientFrameDecoder.decode(input, limits: limits) {
    case .success(let request):
        precondition((request.ref?.utf8.count ?? 0) <= 128, "ref over 128 bytes accepted")
        check(request.frame)
    case .failure(let error):
        precondition((error.ref?.utf8.count ?? 0) <= 128, "error carries a ref over 128 bytes")
        precondition(!error.message.isEmpty, "error without a message")
    }
    return 0
}
