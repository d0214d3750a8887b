"""`evo-ledger tls`: a certificate authority of the table's own and a server certificate it signs, so that the phones
at a table open the recording page over https, where its service worker may run (browsers allow one only in a
secure context).

Each phone trusts the authority once (its certificate, `evo-ledger-ca.crt`, which the server also serves at
`/ca.crt`). The authority's key is never written: it signs this one server certificate and is gone, so a phone
that trusts it trusts nothing else.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from evo_ledger.cli.ledger_commands import reason_of
from evo_ledger.cli.state import state_folder

# As long as browsers accept a server certificate to be valid for.
VALID_DAYS = 397
CA_FILE, CERT_FILE, KEY_FILE = "evo-ledger-ca.crt", "evo-ledger.crt", "evo-ledger.key"
MAX_NAME = 64  # the longest common name a certificate holds


class TlsFilesError(ValueError):
    """A name a certificate cannot hold, or a certificate or key the server cannot serve https with: the message
    names the input and what is wrong."""


def default_folder() -> Path:
    """Where `evo-ledger tls` writes its files and `serve --tls` reads them: the user's state folder, out of any
    project's tree."""
    return state_folder() / "tls"


@dataclass(frozen=True)
class TlsFiles:
    """What `make_tls_files` wrote: the authority's certificate for the phones, the server's certificate (followed
    by the authority's) and its key, and the authority's SHA-256 fingerprint, to compare on a phone."""

    authority: Path
    certificate: Path
    key: Path
    fingerprint: str


def make_tls_files(folder: Path, hosts: Sequence[str], now: datetime | None = None) -> TlsFiles:
    """The files written into `folder`, the server's certificate valid for `hosts` (names or addresses)."""
    now = now or datetime.now(UTC)
    authority_key = ec.generate_private_key(ec.SECP256R1())
    authority = authority_certificate(authority_key, now)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = server_certificate(server_key.public_key(), hosts, authority, authority_key, now)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    files = TlsFiles(
        folder / CA_FILE, folder / CERT_FILE, folder / KEY_FILE, authority.fingerprint(hashes.SHA256()).hex(":")
    )
    files.authority.write_bytes(authority.public_bytes(serialization.Encoding.PEM))
    chain = server.public_bytes(serialization.Encoding.PEM) + authority.public_bytes(serialization.Encoding.PEM)
    files.certificate.write_bytes(chain)
    key = server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    descriptor = os.open(files.key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as written:
        written.write(key)
    return files


def authority_certificate(key: ec.EllipticCurvePrivateKey, now: datetime) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"evo-ledger table {socket.gethostname()}")])
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(key_usage(signs_certificates=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )


def server_certificate(
    public_key: ec.EllipticCurvePublicKey,
    hosts: Sequence[str],
    authority: x509.Certificate,
    authority_key: ec.EllipticCurvePrivateKey,
    now: datetime,
) -> x509.Certificate:
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(authority.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName([alternative_name(host) for host in hosts]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(key_usage(signs_certificates=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(authority_key.public_key()), critical=False)
        .sign(authority_key, hashes.SHA256())
    )


def key_usage(signs_certificates: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not signs_certificates,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=signs_certificates,
        crl_sign=signs_certificates,
        encipher_only=False,
        decipher_only=False,
    )


def checked_hosts(hosts: Sequence[str]) -> list[str]:
    """The names and addresses given, or TlsFilesError naming the first a certificate cannot hold."""
    for host in hosts:
        if not (1 <= len(host) <= MAX_NAME and held(host)):
            raise TlsFilesError(f"--host {host!r}: not a name a certificate holds, such as table.local, or an address")
    return list(hosts)


def held(host: str) -> bool:
    try:
        alternative_name(host)
    except ValueError:
        return False
    return True


def alternative_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def default_hosts(network_address: str) -> list[str]:
    """The names a phone or this machine reaches the server by: its network address, its host name, and this
    machine's own."""
    found = [network_address, socket.gethostname(), f"{socket.gethostname()}.local", "localhost", "127.0.0.1"]
    return list(dict.fromkeys(found))


def authority_of(certificate_file: Path) -> bytes:
    """The last certificate of a server's certificate file (its authority's, as `make_tls_files` writes it), in
    PEM."""
    certificates = x509.load_pem_x509_certificates(certificate_file.read_bytes())
    return certificates[-1].public_bytes(serialization.Encoding.PEM)


def checked_authority(certificate: Path, key: Path) -> bytes:
    """The authority's certificate (PEM) of a server certificate and its key that serve https together, or
    TlsFilesError naming the one that does not."""
    try:
        authority = authority_of(certificate)
    except FileNotFoundError:
        raise TlsFilesError(f"--tls-cert {certificate}: no such file (`evo-ledger tls` makes one)") from None
    except OSError as error:
        raise TlsFilesError(f"--tls-cert {certificate}: {reason_of(error)}") from None
    except ValueError:
        raise TlsFilesError(
            f"--tls-cert {certificate}: not a certificate in PEM, as `evo-ledger tls` writes one"
        ) from None
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(certificate, key)
    except ssl.SSLError as error:
        wrong = "not the key of that certificate" if error.reason == "KEY_VALUES_MISMATCH" else "not a key in PEM"
        raise TlsFilesError(f"--tls-key {key}: {wrong}") from None
    except OSError as error:
        raise TlsFilesError(f"--tls-key {key}: {reason_of(error)}") from None
    return authority
