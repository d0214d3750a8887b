"""`evo-ledger tls` and `serve --tls-cert --tls-key`: a table's own certificate authority, a server certificate it
signs for the names the phones use, and the API over https, which offers the authority's certificate to trust."""

from __future__ import annotations

import socket
import ssl
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from api import ApiSettings, create_app
from evo_ledger.cli.main import main
from evo_ledger.cli.tls import authority_of, make_tls_files
from evo_ledger.settings import Settings

HOSTS = ["127.0.0.1", "table.local"]


@contextmanager
def served_over_tls(database: str, certificate: Path, key: Path) -> Iterator[str]:
    settings = ApiSettings(
        store=Settings(database),
        follow_projections=False,
        writer_process=False,
        tls_authority=authority_of(certificate),
    )
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        ssl_certfile=str(certificate),
        ssl_keyfile=str(key),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"https://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def test_the_server_certificate_is_signed_by_the_tables_authority_for_the_names_given(tmp_path: Path) -> None:
    files = make_tls_files(tmp_path, HOSTS)
    server, authority = x509.load_pem_x509_certificates(files.certificate.read_bytes())
    assert authority.public_bytes(serialization.Encoding.PEM) == files.authority.read_bytes()
    assert authority.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert not server.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    server.verify_directly_issued_by(authority)
    names = server.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(address) for address in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert names.get_values_for_type(x509.DNSName) == ["table.local"]
    assert stat.S_IMODE(files.key.stat().st_mode) == 0o600
    assert files.fingerprint.count(":") == 31


def test_the_api_is_served_over_https_and_offers_its_authority_to_trust(tmp_path: Path) -> None:
    files = make_tls_files(tmp_path, HOSTS)
    trusted = ssl.create_default_context(cafile=str(files.authority))
    with served_over_tls(str(tmp_path / "tls.sqlite"), files.certificate, files.key) as base:
        offered = httpx.get(f"{base}/ca.crt", verify=trusted)
        assert offered.status_code == 200
        assert offered.content == files.authority.read_bytes()
        assert offered.headers["content-type"] == "application/x-x509-ca-cert"
        assert httpx.get(f"{base}/v1/kits", verify=trusted).status_code == 200
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{base}/v1/kits")  # a client that does not trust the table's authority


def test_a_server_without_tls_has_no_authority_to_offer(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient  # noqa: PLC0415

    app = create_app(ApiSettings(store=Settings(str(tmp_path / "plain.sqlite")), follow_projections=False))
    with TestClient(app) as client:
        answer = client.get("/ca.crt")
    assert answer.status_code == 404 and answer.json()["code"] == "no_tls"


def test_the_tls_command_writes_the_files_and_says_how_to_serve_with_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tls", "--out", str(tmp_path), "--host", "table.local"]) == 0
    said = capsys.readouterr().out
    assert f"--tls-cert {tmp_path / 'evo-ledger.crt'} --tls-key {tmp_path / 'evo-ledger.key'}" in said
    assert b"PRIVATE KEY" in (tmp_path / "evo-ledger.key").read_bytes()
    authority = x509.load_pem_x509_certificate((tmp_path / "evo-ledger-ca.crt").read_bytes())
    assert isinstance(authority.public_key(), ec.EllipticCurvePublicKey)
    assert authority.fingerprint(hashes.SHA256()).hex(":") in said


def test_serve_takes_a_certificate_and_its_key_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["serve", "--tls-cert", "evo-ledger.crt"])
    assert refused.value.code == 2
    assert "--tls-cert and --tls-key go together" in capsys.readouterr().err


def test_serve_names_a_certificate_file_it_cannot_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.crt"
    code = main(["serve", "--database", str(tmp_path / "x.sqlite"), "--tls-cert", str(missing), "--tls-key", "k"])
    assert code == 2
    assert f"--tls-cert {missing}" in capsys.readouterr().err


def test_the_tls_command_writes_into_the_users_state_folder_and_serve_tls_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "state" / "evo-ledger" / "tls"
    assert main(["tls", "--host", "table.local"]) == 0
    said = capsys.readouterr().out
    assert f"written into          {folder}" in said and "evo-ledger serve --host 0.0.0.0 --tls" in said
    assert sorted(path.name for path in folder.iterdir()) == ["evo-ledger-ca.crt", "evo-ledger.crt", "evo-ledger.key"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and not list(tmp_path.glob("*.key"))
    with socket.socket() as taken:  # serving stops at the port, once the certificate and key are found good
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--tls", "--port", str(port), "--database", str(tmp_path / "tls.sqlite")]) == 2
    assert "cannot listen there" in capsys.readouterr().err


def test_serve_tls_without_a_certificate_says_how_to_make_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(["serve", "--tls", "--database", str(tmp_path / "tls.sqlite")]) == 2
    certificate = tmp_path / "state" / "evo-ledger" / "tls" / "evo-ledger.crt"
    assert f"--tls-cert {certificate}: no such file (`evo-ledger tls` makes one)" in capsys.readouterr().err


def test_serve_refuses_a_key_that_is_not_its_certificates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine, other = make_tls_files(tmp_path / "mine", HOSTS), make_tls_files(tmp_path / "other", HOSTS)
    serve = ["serve", "--database", str(tmp_path / "tls.sqlite"), "--tls-cert", str(mine.certificate)]
    assert main([*serve, "--tls-key", str(other.key)]) == 2
    assert capsys.readouterr().err == f"evo-ledger serve: --tls-key {other.key}: not the key of that certificate\n"
