import SwitchboardChat
import SwitchboardJSON
import Testing

let testLimits = ChatLimits(maxBodyBytes: 16)
let sessionUUID = "9f0e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"

func decode(_ text: String, limits: ChatLimits = testLimits) -> Result<ClientRequest, ChatError> {
    ClientFrameDecoder.decode(Array(text.utf8), limits: limits)
}

/// The decoded request, recording a test failure when the frame was refused.
func accepted(
    _ text: String, limits: ChatLimits = testLimits, sourceLocation: SourceLocation = #_sourceLocation
)
    -> ClientRequest?
{
    switch decode(text, limits: limits) {
    case .success(let request):
        return request
    case .failure(let error):
        Issue.record("refused \(text): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The refusal, recording a test failure when the frame was accepted.
func refused(
    _ text: String, limits: ChatLimits = testLimits, sourceLocation: SourceLocation = #_sourceLocation
)
    -> ChatError?
{
    switch decode(text, limits: limits) {
    case .success(let request):
        Issue.record("accepted \(text) as \(request)", sourceLocation: sourceLocation)
        return nil
    case .failure(let error):
        return error
    }
}

/// An encoded frame parsed back into an object.
func parsed(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
    let value = try JSONParser.parse(bytes)
    return try #require(value.objectValue, sourceLocation: sourceLocation)
}
