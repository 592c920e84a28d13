/// What a visitor may say of a closed conversation (`csat`, docs/protocol.md
/// "The agent's desk"): a rating from 1 to 5 and, optionally, a comment.
public enum CsatAnswer {
    public static let maxCommentBytes = 1000
}
