import Foundation
import HDF5

extension ForceTraceError {
    /// What an HDF5 failure means for the user, from its classification
    /// (HDF5's error codes and errno, `HDF5Error.Kind`).
    public init(_ error: HDF5Error) {
        let file = error.file.isEmpty ? error.function : error.file
        let directory = TemporaryFiles.split(file).directory
        let message: String, hint: String?
        switch error.kind {
        case .noSpace:
            let quota = error.errno == EDQUOT ? " (disk quota exceeded)" : ""
            if let away = TemporaryFiles.awayFolder(of: file) {
                // A temporary away from the output (TMPDIR): its folder is full, not the output's.
                message = "no space left on the device holding \(away), where its temporary copy is written\(quota)"
                hint = "free space there (df -h \(away)), or set TMPDIR to a folder with room"
            } else {
                message = "no space left on the device holding \(file)\(quota)"
                hint = "free space on the file system of \(directory) (df -h \(directory)), or write the output elsewhere"
            }
        case .permissionDenied:
            let readOnly = error.errno == EROFS
            message = readOnly ? "the file system holding it is read-only (read-only file system)" : "permission denied"
            hint = readOnly ? "write the output to a writable file system"
                            : "check the permissions of the file and of \(directory) (ls -ld), or use another path"
        case .locked:
            message = "the file is locked by another process that has it open (HDF5 file locking)"
            hint = "find it with 'fuser -v \(file)' and let it finish; on a file system without working locks set HDF5_USE_FILE_LOCKING=FALSE"
        case .truncated:
            message = "truncated file: it ends before the end its HDF5 superblock records (\(error.innermostCause))"
            hint = "the file was cut short (an interrupted copy or download, or a full disk); copy it again from its source"
        case .notFound:
            (message, hint) = ("no such file or directory", nil)
        case .other:
            (message, hint) = ("the file is damaged and HDF5 cannot read it (\(error.innermostCause))", nil)
        }
        self.init(file: file, message, hint: hint, kind: .hdf5, errno: error.errno)
    }
}

extension HDF5Error: UserFacingError {
    public var forceTraceError: ForceTraceError { ForceTraceError(self) }
}
