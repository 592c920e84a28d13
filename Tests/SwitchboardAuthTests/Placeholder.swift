import Testing

@Test func placeholderAuth() {}
