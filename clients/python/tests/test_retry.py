"""The retry rules and the errors, with both clients, against httpx's MockTransport and a fake clock (no server,
no real waiting)."""

import asyncio
import inspect
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from passkeyd_client import (
    AsyncPasskeydClient,
    ErrorCode,
    NO_RETRY,
    PasskeydClient,
    PasskeydConnectionError,
    PasskeydError,
    PasskeydTimeout,
    RetryPolicy,
    _retry,
)
from passkeyd_client._retry import parse_retry_after

CREDENTIAL = {"id": "Y3JlZA", "rawId": "Y3JlZA", "type": "public-key", "response": {}}


class Clock:
    """Replaces the clock and both sleeps: a sleep only moves the clock."""

    def __init__(self):
        self.now = 1000.0
        self.waits = []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.waits.append(seconds)
        self.now += seconds

    async def async_sleep(self, seconds):
        self.sleep(seconds)


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(_retry, "monotonic", clock.monotonic)
    monkeypatch.setattr(_retry, "sleep", clock.sleep)
    monkeypatch.setattr(_retry, "async_sleep", clock.async_sleep)
    monkeypatch.setattr(_retry, "jitter", lambda: 1.0)  # the longest backoff
    return clock


def busy(status=429, code="rate_limited", retry_after="2"):
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return httpx.Response(status, headers=headers, json={"error": {"code": code, "message": "busy"}})


class Server:
    """Answers from a script: each request takes the next answer (an httpx.Response, an exception to raise, or a
    function of the request), the last one repeating."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        # A fresh response each time (a response's body is read once, by one kind of client).
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)


@pytest.fixture(params=["sync", "async"])
def connect(request):
    """``connect(server, **options)`` → a client on a MockTransport, whose methods return their answers (the async
    client's awaited here)."""

    def make(server, **options):
        cls = PasskeydClient if request.param == "sync" else AsyncPasskeydClient
        return Calling(cls("http://passkeyd.test", api_key="k", transport=httpx.MockTransport(server), **options))

    return make


class Calling:
    def __init__(self, client):
        self.client = client

    def __getattr__(self, name):
        method = getattr(self.client, name)

        def call(*args, **kwargs):
            answer = method(*args, **kwargs)
            return asyncio.run(answer) if inspect.isawaitable(answer) else answer

        return call


OK_BEGIN = httpx.Response(200, json={"publicKey": {"challenge": "Y2g"}})


# ---- what is retried ----


def test_a_begin_is_retried_after_retry_after(connect, clock):
    server = Server(busy(retry_after="2"), busy(503, "ceremony_capacity_reached", "1"), OK_BEGIN)
    assert connect(server).registration_begin(user_name="ada") == {"publicKey": {"challenge": "Y2g"}}
    assert len(server.requests) == 3 and clock.waits == [2.0, 1.0]


def test_a_read_is_retried_with_backoff_without_retry_after(connect, clock):
    server = Server(busy(503, "storage_unavailable", None), busy(503, "storage_unavailable", None),
                    httpx.Response(200, json={"status": "ok"}))
    assert connect(server, retry=RetryPolicy(backoff=0.5)).get_health() == {"status": "ok"}
    assert clock.waits == [0.5, 1.0]  # doubled per attempt (jitter at its longest here)


@pytest.mark.parametrize("call", [
    lambda c: c.registration_finish(CREDENTIAL),
    lambda c: c.authentication_finish(CREDENTIAL),
    lambda c: c.refresh_session("pkd_rt_x"),
    lambda c: c.exchange_handoff_code("pkd_hc_x"),
    lambda c: c.create_user("ada"),
    lambda c: c.app_store_post_transaction("dXNlcg", "jws"),
    lambda c: c.admin_delete_credential("Y3JlZA"),
], ids=["registration_finish", "authentication_finish", "refresh_session", "exchange_handoff_code", "create_user",
        "app_store_post_transaction", "admin_delete_credential"])
def test_finishes_and_writes_are_not_retried_by_default(connect, clock, call):
    server = Server(busy(retry_after="1"), httpx.Response(200, json={}))
    with pytest.raises(PasskeydError) as raised:
        call(connect(server, admin_key="a"))
    assert len(server.requests) == 1 and clock.waits == []
    assert raised.value.status == 429 and raised.value.code is ErrorCode.RATE_LIMITED
    assert raised.value.retry_after == 1.0 and raised.value.attempts == 1


def test_writes_are_retried_when_asked(connect, clock):
    server = Server(busy(retry_after="1"), httpx.Response(200, json={"user": {}}))
    client = connect(server)
    opted_in = Calling(client.client.with_options(retry=RetryPolicy(writes=True)))
    assert opted_in.authentication_finish(CREDENTIAL) == {"user": {}}
    assert len(server.requests) == 2 and clock.waits == [1.0]
    # The original client keeps its policy.
    assert client.client.retry == RetryPolicy()


def test_the_readiness_probe_is_not_retried(connect, clock):
    server = Server(busy(503, "storage_unavailable", "1"))
    with pytest.raises(PasskeydError) as raised:
        connect(server, retry=RetryPolicy(writes=True)).get_readiness()
    assert raised.value.status == 503 and len(server.requests) == 1


@pytest.mark.parametrize("status,code", [(400, "malformed_json"), (401, "unauthorized"), (500, "internal_error"),
                                         (422, "signature_invalid")])
def test_other_errors_are_not_retried(connect, clock, status, code):
    server = Server(httpx.Response(status, json={"error": {"code": code, "message": "no"}}))
    with pytest.raises(PasskeydError) as raised:
        connect(server).authentication_begin()
    assert len(server.requests) == 1 and raised.value.status == status and raised.value.code == code


def test_no_retry_policy(connect, clock):
    for policy in (None, NO_RETRY, RetryPolicy(max_attempts=1)):
        server = Server(busy(), OK_BEGIN)
        with pytest.raises(PasskeydError):
            connect(server, retry=policy).authentication_begin()
        assert len(server.requests) == 1


# ---- how long ----


def test_attempts_are_bounded(connect, clock):
    server = Server(busy(retry_after="1"))
    with pytest.raises(PasskeydError) as raised:
        connect(server, retry=RetryPolicy(max_attempts=4)).authentication_begin()
    assert len(server.requests) == 4 and clock.waits == [1.0, 1.0, 1.0]
    assert raised.value.attempts == 4 and raised.value.code == "rate_limited"


def test_a_retry_after_longer_than_max_wait_is_not_waited_for(connect, clock):
    server = Server(busy(retry_after="30"), OK_BEGIN)
    with pytest.raises(PasskeydError) as raised:
        connect(server, retry=RetryPolicy(max_wait=10)).authentication_begin()
    assert len(server.requests) == 1 and clock.waits == [] and raised.value.retry_after == 30.0


def test_never_past_the_deadline(connect, clock):
    server = Server(busy(retry_after="5"))
    with pytest.raises(PasskeydError) as raised:
        connect(server, retry=RetryPolicy(max_attempts=10, deadline=12)).authentication_begin()
    # 5 s, 5 s: the next 5 s would end at 15 s, past the 12 s deadline.
    assert clock.waits == [5.0, 5.0] and len(server.requests) == 3 and raised.value.attempts == 3


def test_each_attempt_gets_only_what_is_left_of_the_deadline(connect, clock):
    timeouts = []

    def record(request):
        timeouts.append(request.extensions["timeout"]["read"])
        return busy(retry_after="4")

    with pytest.raises(PasskeydError):
        connect(Server(record), timeout=10.0, retry=RetryPolicy(max_attempts=5, deadline=9)).authentication_begin()
    assert timeouts == [9.0, 5.0, 1.0]  # then 4 s more would pass the deadline: no fourth attempt


def test_retry_after_as_an_http_date():
    later = datetime.now(timezone.utc) + timedelta(seconds=120)
    assert 115 <= parse_retry_after(format_datetime(later, usegmt=True)) <= 120
    assert parse_retry_after("7") == 7.0 and parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after(format_datetime(datetime(2000, 1, 1, tzinfo=timezone.utc), usegmt=True)) == 0.0


def test_a_policy_is_checked():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(deadline=0)


# ---- no answer ----


def test_a_failed_connection_is_retried_for_a_read_and_raised_as_a_connection_error(connect, clock):
    server = Server(httpx.ConnectError("refused"), httpx.Response(200, json={"status": "ok"}))
    assert connect(server).get_health() == {"status": "ok"} and len(server.requests) == 2
    server = Server(httpx.ConnectError("refused"))
    with pytest.raises(PasskeydConnectionError) as raised:
        connect(server).registration_finish(CREDENTIAL)
    assert len(server.requests) == 1 and raised.value.status is None and raised.value.code is None
    assert isinstance(raised.value, PasskeydError) and isinstance(raised.value.__cause__, httpx.ConnectError)
    server = Server(httpx.ConnectError("refused"))
    with pytest.raises(PasskeydConnectionError) as raised:
        connect(server).get_health()
    assert len(server.requests) == 3 and raised.value.attempts == 3


def test_a_timeout_is_raised_as_passkeyd_timeout_and_not_retried_once_sent(connect, clock):
    server = Server(httpx.ReadTimeout("slow"), httpx.Response(200, json={}))
    with pytest.raises(PasskeydTimeout) as raised:
        connect(server).get_health()
    assert len(server.requests) == 1 and isinstance(raised.value, PasskeydError)
    server = Server(httpx.ConnectTimeout("slow"), httpx.Response(200, json={"status": "ok"}))
    assert connect(server).get_health() == {"status": "ok"}  # a connect timeout sent nothing: retried
    server = Server(httpx.RemoteProtocolError("closed"))
    with pytest.raises(PasskeydConnectionError):
        connect(server).get_health()


# ---- error answers ----


def test_an_error_answer_carries_status_code_retry_after_and_signal(connect, clock):
    signal = {"rpId": "example.com", "credentialId": "Y3JlZA"}
    server = Server(httpx.Response(404, json={"error": {"code": "credential_unknown", "message": "gone"},
                                              "signal": signal}))
    with pytest.raises(PasskeydError) as raised:
        connect(server).authentication_finish(CREDENTIAL)
    error = raised.value
    assert (error.status, error.code, error.message, error.signal) == (404, ErrorCode.CREDENTIAL_UNKNOWN, "gone", signal)
    assert error.retry_after is None and error.operation == "authentication_finish"
    assert "404 credential_unknown" in str(error)


def test_an_unknown_code_and_a_foreign_body(connect, clock):
    server = Server(httpx.Response(409, json={"error": {"code": "brand_new_code", "message": "?"}}))
    with pytest.raises(PasskeydError) as raised:
        connect(server).create_user("ada")
    assert raised.value.code == "brand_new_code" and not isinstance(raised.value.code, ErrorCode)
    server = Server(httpx.Response(502, text="<html>bad gateway</html>"))
    with pytest.raises(PasskeydError) as raised:
        connect(server).create_user("ada")
    assert raised.value.status == 502 and raised.value.code == "http_502"


def test_the_client_closes_its_pool_and_not_a_callers():
    closed = []

    class Transport(httpx.BaseTransport):
        def handle_request(self, request):
            return httpx.Response(200, json={"status": "ok"})

        def close(self):
            closed.append("transport")

    with PasskeydClient("http://passkeyd.test", transport=Transport()) as client:
        client.get_health()
        copy = client.with_options(retry=None)
        copy.close()  # a copy shares the pool and does not close it
        assert closed == [] and copy.retry == NO_RETRY
    assert closed == ["transport"]
    own = httpx.Client(transport=Transport())
    with PasskeydClient("http://passkeyd.test", http_client=own) as client:
        client.get_health()
    assert closed == ["transport"] and not own.is_closed
    own.close()

    async def main():
        transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"status": "ok"}))
        async with AsyncPasskeydClient("http://passkeyd.test", transport=transport) as client:
            await client.get_health()
            http = client._http
        assert http.is_closed

    asyncio.run(main())
