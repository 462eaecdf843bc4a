"""A certificate authority that lives for one session: how the cassette proxy reads HTTPS.

`SessionCA.create()` makes a fresh CA (EC P-256) in a private temporary directory (mode 0700). Its
private key never leaves this process's memory; each leaf certificate's key is written there only
for the moment `ssl` loads it, then unlinked. The directory holds the trust bundle the server is
pointed at (the system's CAs, the CAs the environment already named, and this CA): `trust_env()`
gives the variables that make Python (`ssl`, httpx, requests), curl, Node and git trust it.
`close()` removes the directory. Imported only when `--http-cassette` is given or a cassette is
replayed: `cryptography` costs ~50 ms.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import ssl
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# Variables naming a CA bundle file: Python's ssl and httpx (SSL_CERT_FILE, read by OpenSSL; Go reads
# it too), requests, curl, git, npm, pip, boto (AWS), httplib2; Node adds NODE_EXTRA_CA_CERTS to its
# built-in store.
BUNDLE_VARS = (
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "GIT_SSL_CAINFO",
    "npm_config_cafile",
    "PIP_CERT",
    "AWS_CA_BUNDLE",
    "HTTPLIB2_CA_CERTS",
)
# Where distributions keep the system bundle, when OpenSSL's default paths name none that exists.
SYSTEM_BUNDLES = (
    "/etc/ssl/certs/ca-certificates.crt",  # Debian, Ubuntu, Alpine, Arch
    "/etc/pki/tls/certs/ca-bundle.crt",  # Fedora, RHEL
    "/etc/ssl/ca-bundle.pem",  # openSUSE
    "/etc/ssl/cert.pem",  # macOS, BSDs
)
LEAF_DAYS = 397  # the longest validity every client still accepts for a server certificate
ALPN = ["http/1.1"]  # HTTP/2 is not spoken: clients fall back to HTTP/1.1


def system_bundle() -> Path | None:
    """The system's CA bundle file as OpenSSL finds it (honouring `$SSL_CERT_FILE`), or None."""
    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile, *SYSTEM_BUNDLES):
        if candidate and os.path.isfile(candidate):
            return Path(candidate)
    try:
        import certifi  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return Path(certifi.where())


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class SessionCA:
    """The session's CA: leaf certificates on demand, server-side TLS contexts, the trust bundle."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._leaf_key = ec.generate_private_key(ec.SECP256R1())  # one key for every leaf
        start = _now() - datetime.timedelta(hours=1)
        subject = _name(f"mcptape session CA {os.urandom(4).hex()}")
        public = self._key.public_key()
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(start + datetime.timedelta(days=LEAF_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        self.pem = self.cert.public_bytes(serialization.Encoding.PEM)
        self.bundle = directory / "ca-bundle.pem"
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()
        self._serial = 0

    @classmethod
    def create(cls, environ: Mapping[str, str] | None = None) -> SessionCA:
        """A new CA in a new private directory, with its trust bundle written (raises OSError)."""
        directory = Path(tempfile.mkdtemp(prefix="mcptape-ca-"))  # mode 0700
        try:
            ca = cls(directory)
            ca.write_bundle(os.environ if environ is None else environ)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        return ca

    def write_bundle(self, environ: Mapping[str, str]) -> None:
        """The system bundle, every bundle the environment already names, then this CA."""
        parts: list[bytes] = []
        seen: set[Path] = set()
        sources = [system_bundle(), *(Path(environ[v]) for v in BUNDLE_VARS if environ.get(v))]
        for source in sources:
            if source is None or source in seen:
                continue
            seen.add(source)
            try:
                data = source.read_bytes()
            except OSError:
                continue  # a stale variable: the server would not have trusted it either
            parts.append(data if data.endswith(b"\n") else data + b"\n")
        parts.append(self.pem)
        fd = os.open(self.bundle, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(b"".join(parts))

    def trust_env(self) -> dict[str, str]:
        """Variables that make the server's TLS clients trust the bundle (this CA included)."""
        return dict.fromkeys(BUNDLE_VARS, str(self.bundle))

    def server_context(self, host: str) -> ssl.SSLContext:
        """A server-side TLS context presenting a certificate for `host` (a name or an IP address)."""
        host = host.strip("[]").lower()
        with self._lock:
            ctx = self._contexts.get(host)
            if ctx is None:
                ctx = self._contexts[host] = self._make_context(host)
            return ctx

    def _make_context(self, host: str) -> ssl.SSLContext:
        self._serial += 1
        pem = self._leaf(host)
        path = self.dir / f"leaf-{self._serial}.pem"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(pem)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.minimum_version = ssl.TLSVersion.TLSv1_2
            ctx.load_cert_chain(path)
        finally:
            path.unlink()  # the key stays in the context's memory only
        ctx.set_alpn_protocols(ALPN)
        return ctx

    def _leaf(self, host: str) -> bytes:
        """A certificate for `host` signed by this CA, and its key, as one PEM."""
        try:
            alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            alt = x509.DNSName(host)
        start = _now() - datetime.timedelta(hours=1)
        public = self._leaf_key.public_key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name(host[:64]))
            .issuer_name(self.cert.subject)
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(start + datetime.timedelta(days=LEAF_DAYS - 1))
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()), critical=False
            )
            .sign(self._key, hashes.SHA256())
        )
        key = self._leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        return cert.public_bytes(serialization.Encoding.PEM) + key

    def close(self) -> None:
        """Remove the directory (the bundle; no key is ever left there)."""
        shutil.rmtree(self.dir, ignore_errors=True)


def upstream_context(extra_cas: list[str] | tuple[str, ...] = ()) -> ssl.SSLContext:
    """A client-side context verifying real servers against the system store, plus `extra_cas`
    (PEM files: `--http-cassette-ca`, for a test server). Raises OSError/SSLError for a bad file."""
    ctx = ssl.create_default_context()
    for path in extra_cas:
        ctx.load_verify_locations(cafile=path)
    ctx.set_alpn_protocols(ALPN)
    return ctx
