import ArgumentParser
import Foundation
import HealthStoreCore

/// The secret that unlocks a store: `--key-file`, else `HEALTHRECORDS_PASSPHRASE`, else a
/// prompt on the terminal.
private func currentCredentials(_ options: StoreOptions, prompt: String = "Passphrase: ") throws -> StoreCredentials {
    if let given = try options.givenCredentials() { return given }
    if let typed = PassphrasePrompt.read(prompt) { return .passphrase(typed) }
    throw CommandFailure.usage("give the passphrase (HEALTHRECORDS_PASSPHRASE or a terminal prompt) or --key-file")
}

struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Check the passphrase or key file and keep the store unlocked for this user until `lock`.")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let store = try await storeOptions.openKeyed(allowLocked: true)
        let credentials = try currentCredentials(storeOptions)
        do {
            let (keyID, key) = try await store.unwrapDataKey(credentials)
            try storeOptions.session.save(keyID: keyID, key: key)
        } catch let e as HealthStoreError {
            throw StoreOptions.failure(e)
        }
        print("unlocked \(storeOptions.location)")
    }
}

struct LockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Forget the unlocked key: reads fail with `store locked` until `unlock`.")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let had = storeOptions.session.remove()
        print(had ? "locked \(storeOptions.location)" : "\(storeOptions.location) was not unlocked")
    }
}

struct RotateKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Wrap the store's data key for a new passphrase or key file (no record is re-encrypted).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The new key file (default: a new passphrase from HEALTHRECORDS_NEW_PASSPHRASE or the terminal).")
    var newKeyFile: String?

    func run() async throws {
        let store = try await storeOptions.openKeyed(allowLocked: true)
        let current: StoreCredentials
        if let given = try storeOptions.givenCredentials() {
            current = given
        } else if let session = storeOptions.session.dataKey() {
            current = session.credentials
        } else {
            current = try currentCredentials(storeOptions, prompt: "Current passphrase: ")
        }
        let new: StoreCredentials
        if let newKeyFile {
            do { new = try StoreCredentials.keyFile(at: newKeyFile) } catch { throw CommandFailure.usage(error.description) }
        } else if let phrase = ProcessInfo.processInfo.environment["HEALTHRECORDS_NEW_PASSPHRASE"], !phrase.isEmpty {
            new = .passphrase(phrase)
        } else if let phrase = try PassphrasePrompt.readNew("passphrase") {
            new = .passphrase(phrase)
        } else {
            throw CommandFailure.usage("give the new secret: --new-key-file, HEALTHRECORDS_NEW_PASSPHRASE or a terminal prompt")
        }
        do {
            try await store.rotateKey(from: current, to: new, date: Date())
        } catch let e as HealthStoreError {
            throw StoreOptions.failure(e)
        }
        print("rotated the key of \(storeOptions.location)")
    }
}

struct EncryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a plain store in place under a passphrase or key file (vacuums, so no plaintext stays in free pages).")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        var credentials = try storeOptions.givenCredentials()
        if credentials == nil, let phrase = try PassphrasePrompt.readNew("passphrase") { credentials = .passphrase(phrase) }
        guard let credentials else {
            throw CommandFailure.usage("give the passphrase (HEALTHRECORDS_PASSPHRASE or a terminal prompt) or --key-file")
        }
        do {
            try await storeOptions.encrypt(credentials)
        } catch {
            throw StoreOptions.failure(error)
        }
        print("encrypted \(storeOptions.location)")
    }
}
