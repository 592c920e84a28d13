// Placeholder so the target builds; replaced by the module's real files.
