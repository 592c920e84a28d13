import SwitchboardAttachments

extension Configuration {
    /// The checks of `[attachments]` that span keys or read a list.
    func validateAttachments() throws(ConfigError) {
        if !["postgres", "filesystem"].contains(attachmentsStorage) {
            throw ConfigError(
                key: "attachments.storage", message: "\(attachmentsStorage) is not one of postgres, filesystem")
        }
        if attachmentsStorage == "filesystem" && attachmentsPath.isEmpty {
            throw ConfigError(key: "attachments.path", message: "required when attachments.storage is filesystem")
        }
        if attachmentsAllowedTypes.isEmpty {
            throw ConfigError(key: "attachments.allowed_types", message: "empty: no upload could ever be accepted")
        }
        for type in attachmentsAllowedTypes where AttachmentType(mediaType: type) == nil {
            let known = AttachmentType.allCases.map(\.mediaType).joined(separator: ", ")
            throw ConfigError(key: "attachments.allowed_types", message: "\(type) is not one of \(known)")
        }
    }

    /// The allowed types, as the sniffer takes them (checked by `validate`).
    var attachmentTypes: Set<AttachmentType> {
        Set(attachmentsAllowedTypes.compactMap { AttachmentType(mediaType: $0) })
    }
}
