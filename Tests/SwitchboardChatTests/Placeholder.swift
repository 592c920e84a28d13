import Testing

@Test func placeholderChat() {}
