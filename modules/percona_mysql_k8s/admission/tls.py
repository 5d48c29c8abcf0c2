"""The webhook's CA and serving certificate for ``percona-mysql-admission manifests`` and the tests, made with
``cryptography`` (the Pulumi component makes its own with pulumi-tls, kept in the stack's state: database.admission).

ECDSA P-256 keys; the CA is valid for ten years, the serving certificate for one, with its Service's DNS names (and
any IP address asked for) as subjectAltNames, which is what the API server checks (it ignores the common name). Kept in
a directory (``--tls-dir``), a CA is reused and a serving certificate is reissued only within RENEW_DAYS of its end:
run the command again and apply its output to rotate (docs/admission.md).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CA_DAYS, SERVING_DAYS, RENEW_DAYS = 3650, 365, 30


@dataclass(frozen=True)
class Material:
    ca_pem: str
    cert_pem: str
    key_pem: str


def _key():
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key) -> str:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def _pem_cert(cert) -> str:
    from cryptography.hazmat.primitives import serialization

    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _ca(now: datetime.datetime):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    key = _key()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "percona-mysql-admission CA")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )  # keyCertSign, cRLSign
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _serving(ca_key, ca_cert, names: Sequence[str], ips: Sequence[str], now: datetime.datetime):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = _key()
    alt = [x509.DNSName(name) for name in names] + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, (list(names) or list(ips))[0])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=SERVING_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return key, cert


def make(names: Sequence[str], ips: Sequence[str] = ()) -> Material:
    """A new CA and a serving certificate for ``names`` and ``ips``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, ca_cert = _ca(now)
    key, cert = _serving(ca_key, ca_cert, names, ips, now)
    return Material(_pem_cert(ca_cert), _pem_cert(cert), _pem_key(key))


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private keys: the owner's alone
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


def kept(directory: Path, names: Sequence[str], ips: Sequence[str] = ()) -> Material:
    """The material in ``directory`` (ca.crt, ca.key, tls.crt, tls.key), made or renewed as needed."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    now = datetime.datetime.now(datetime.UTC)
    ca_crt, ca_key_file = directory / "ca.crt", directory / "ca.key"
    if ca_crt.exists() and ca_key_file.exists():
        ca_cert = x509.load_pem_x509_certificate(ca_crt.read_bytes())
        ca_key = serialization.load_pem_private_key(ca_key_file.read_bytes(), password=None)
    else:
        ca_key, ca_cert = _ca(now)
        _write(ca_key_file, _pem_key(ca_key))
        _write(ca_crt, _pem_cert(ca_cert))
    crt, key_file = directory / "tls.crt", directory / "tls.key"
    renew = True
    if crt.exists() and key_file.exists():
        cert = x509.load_pem_x509_certificate(crt.read_bytes())
        wanted = sorted(names) + sorted(ips)
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        have = sorted(alt.get_values_for_type(x509.DNSName)) + sorted(str(ip) for ip in alt.get_values_for_type(x509.IPAddress))
        renew = (
            have != wanted
            or cert.issuer != ca_cert.subject
            or cert.not_valid_after_utc - now < datetime.timedelta(days=RENEW_DAYS)
        )
    if renew:
        key, cert = _serving(ca_key, ca_cert, names, ips, now)
        _write(key_file, _pem_key(key))
        _write(crt, _pem_cert(cert))
    return Material(ca_crt.read_text(), crt.read_text(), key_file.read_text())
