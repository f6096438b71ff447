import CardScanning
import Foundation
import SmartHealthCards

/// Hands the command line's card inputs to the card-input reader.
///
/// What an input holds, and what is wrong with it, is the reader's to say (every input yields a
/// card or a report that fails with its code, so `verify` never reports success for nothing
/// verified); only an input that cannot be had at all — a missing or unreadable file — is a
/// usage error here.
enum CardInputs {
    static func read(_ inputs: [String]) throws -> [CardReading] {
        var reader = CardInputReader()
        for input in inputs {
            let (data, name) = try load(input)
            reader.add(data, name: name)
        }
        return reader.readings
    }

    /// The bytes of one input and the name its report gives it: standard input for `-`, the
    /// text itself when it names the `shc:` scheme or starts with `HC1:`, else a file. Reads stop one byte past the
    /// reader's limit, so a huge file or an endless stream is reported, not loaded.
    static func load(_ input: String) throws -> (Data, String) {
        if input == "-" { return (try bounded(FileHandle.standardInput, input), "stdin") }
        if HealthCardQRText.namesScheme(input.utf8) || CardInputKind.namesDCC(input.utf8) { return (Data(input.utf8), "argument") }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir), !isDir.boolValue else {
            throw CommandFailure.usage("\(input): no such file")
        }
        guard let handle = FileHandle(forReadingAtPath: input) else { throw CommandFailure.usage("\(input): cannot be read") }
        defer { try? handle.close() }
        return (try bounded(handle, input), (input as NSString).lastPathComponent)
    }

    private static func bounded(_ handle: FileHandle, _ input: String) throws -> Data {
        do { return try CardInputReader.contents(of: handle) } catch { throw CommandFailure.usage("\(input): cannot be read (\(error.localizedDescription))") }
    }
}
