/// Apple-signed data, verified offline and without I/O.
///
/// - `AppStore/`: StoreKit 2 signed transactions and renewal info, App Store Server Notifications V2 (ES256 JWS with
///   an `x5c` chain anchored only on a configured Apple root), their payload rules and the entitlements they imply.
/// - `AppAttest/`: App Attest attestation objects and assertions (CBOR, an `x5c` chain to the configured Apple App
///   Attestation Root CA, nonce, key id, rpIdHash, counter and AAGUID rules).
///
/// Each part has its own error type with one stable code per check; roots, clocks and stored state come in as values.
public enum AppleSignedData {}
