// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "forcetrace",
    products: [
        .executable(name: "forcetrace", targets: ["forcetrace"]),
        .library(name: "ForceTrace", targets: ["ForceTrace"]),
    ],
    targets: [
        // C shims only: what Swift cannot import from the system libraries.
        .systemLibrary(
            name: "CHDF5",
            pkgConfig: "hdf5",
            providers: [.apt(["libhdf5-dev"])]
        ),
        // libevdev: event code names and live devices.
        .systemLibrary(
            name: "CEvdev",
            pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        // libyaml, for libinput record files.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // libdeflate, to inflate raw HDF5 chunks on worker threads (HDF5/RawChunks.swift).
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // H5Dread with faults on damaged files turned into errors (see its header).
        .target(name: "CHDF5Guard", dependencies: ["CHDF5"]),
        // HDF5's shuffle filter undone with SSE2's unpacks (HDF5/RawChunks.swift).
        .target(name: "CByteShuffle"),
        // The thin safe layer over HDF5: no hid_t escapes it.
        .target(name: "HDF5", dependencies: ["CHDF5", "CHDF5Guard", "CDeflate", "CByteShuffle"]),
        // The library: decoding, formats, trace files, analysis.
        .target(name: "ForceTrace", dependencies: ["HDF5", "CEvdev", "CYAML"]),
        // The command-line layer, one file per subcommand.
        .executableTarget(name: "forcetrace", dependencies: ["ForceTrace"]),
        // forcetrace's bare read of the samples columns, a yardstick in `make bench`.
        .executableTarget(name: "forcetrace-bare-read", dependencies: ["ForceTrace", "HDF5"], path: "Tests/bench/BareRead"),
        .testTarget(name: "HDF5Tests", dependencies: ["HDF5"]),
        .testTarget(name: "ForceTraceTests", dependencies: ["ForceTrace", "HDF5"]),
    ]
)
