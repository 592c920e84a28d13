import Testing

@Test func placeholderReaders() {}
