import Foundation

/// Reads a passphrase from the terminal without echo; `nil` when standard input is not a
/// terminal (scripts give `HEALTHRECORDS_PASSPHRASE` or `--key-file` instead).
enum PassphrasePrompt {
    static func read(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
        FileHandle.standardError.write(Data("\n".utf8))
        return line
    }

    /// A new passphrase, typed twice on a terminal.
    static func readNew(_ what: String) throws -> String? {
        guard let first = read("New \(what): ") else { return nil }
        guard let second = read("Repeat \(what): "), second == first else { throw CommandFailure.failed("the passphrases differ") }
        guard !first.isEmpty else { throw CommandFailure.failed("the passphrase is empty") }
        return first
    }
}
