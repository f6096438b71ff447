import Foundation

extension CardInputReader {
    /// The bytes of a file or stream, read no further than one byte past `limit`.
    ///
    /// A file's size is not enough to bound a read: devices (`/dev/zero`), pipes and files that
    /// grow while read report no or a wrong size. What is returned may be one byte over the
    /// limit, which ``add(_:name:)`` then reports as ``CardInputError/tooLarge(limit:)``.
    public static func contents(of handle: FileHandle, limit: Int = Limits.default.maxInputBytes) throws -> Data {
        var data = Data()
        while data.count <= limit {
            guard let piece = try handle.read(upToCount: min(1 << 20, limit + 1 - data.count)), !piece.isEmpty else { break }
            data.append(piece)
        }
        return data
    }
}
