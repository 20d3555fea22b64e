"""Ordinary code and text stays as written; the credentials beside it do not.

The kinds of false positive the labelled benchmark (``benchmarks/redact_bench.py``)
found on real logs: placeholders, sentinels, references, variables and expressions,
type annotations, public keys, key names, test statuses, ids in URLs; and a context
rule that ran onto the next line.
"""

from __future__ import annotations

import pytest
from secret_fakes import alnum

from sessite.analyze.redact import Redactor

LEFT_AS_WRITTEN = [
    "api_key = 'YOUR_API_KEY'",
    "OPENAI_API_KEY=your-api-key-here",
    "export API_KEY=xxxxxxxxxxxxxxxx",
    "OPENAI_API_KEY=sk-your-actual-api-key-here",
    "GROQ_API_KEY=gsk_xxxxxxxxxxxxxxxxxxxxxxxx",
    'jwtSecret: "test-secret"',
    "https://api.nasa.gov/planetary/apod?api_key=DEMO_KEY&date=2024-01-01",
    'password: "__REDACTED__"',
    'token = "<redacted>"',
    "total_tokens += usage.input_tokens",
    "if usage.cache_read_input_tokens:\n    total_cache_read_tokens += usage.cache_read_input_tokens",
    "api_key=SOME_ENV_NAME",
    "client = OpenAI(api_key=OPENAI_API_KEY)",
    "client = Groq(api_key=groq_api_key)",
    "x_tokens=x_tokens",
    "cfg.S3.SecretKey = s3Secret",
    "secret = secrets[idx]",
    "api_key = Config.get_api_key()",
    "initial_password = lib.mkOption {",
    "max_tokens: Optional[int] = None",
    "api_key: Option<String>,",
    'PASSWORD: "$PASSWORD"',
    'DB_PASSWORD: "${DB_PASSWORD}"',
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "password=\nusername=admin12345",
    "VAPID_PUBLIC_KEY: BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U",
    "https://example.com/item?id=4029117178837806305&x=1",
    "CACHE_KEY = 'user_profile_cache'",
    "const STORAGE_KEY = 'todos-vuejs-2.0'",
    "date -u +%Y-%m-%dT%H:%M:%SZ",
    "private_key_path = '/home/u/.ssh/id_rsa'",
    "    --- PASS: TestDevMachinesSuite/TestCreateDevMachine/Create_basic_dev_machine (0.00s)",
    'SecretName: "juicefs-secret-name"',
    "| `VPS_SSH_KEY` | the SSH private key | `-----BEGIN OPENSSH PRIVATE KEY-----...` |",
    '"Authorization": "Bearer token"',
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "REDIS_URL: redis://chex-mix-redis.default.svc.cluster.local:6379",
    "ANTHROPIC_API_KEY=sk-ant-api03-test1234567890abcdefghijklmnop",
    "- pg_hba.conf set to md5 auth (not password: scram-sha-256) for node-postgres",
    "Token: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ...\n--- Settings PUT ---",
    "- Contains DB credentials: DB_USER=cortexbuild, DB_PASSWORD (in .env)",
    "--set-secrets=API_KEY=api-key-secret:latest",
    'curl -H "Authorization: Bearer invalid" http://localhost/api',
    "const USER_KEY = 'cortexbuild_user';",
    "- Token: gho_************************************",
    "tests pass: ============================= test session starts ==",
    # Found on fresh real logs after the first round (a Feishu bot's Codex sessions):
    "const nodeToken = nodeRes.data?.node?.node_token;",
    "pageToken = res.data?.page_token || null;",
    "api_key: API密钥（可选）",
    '"tenant_access_token": "test_token_123"',
    # Keys typed for an example: six keys in a row in the random body.
    "OPENAI_API_KEY=sk-1234567890abcdef1234567890abcdef",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-1234abcd5678efgh9012ijkl3456mnop",
    "sk-or-v1-abc123def456ghi789jkl012mno345pqr678stu901vwx234yz5678901234",
    "OPENROUTER_API_KEY=sk-or-v1-0000000000000000000000000000000000000000000000000000000000000000",
]


@pytest.mark.parametrize("text", LEFT_AS_WRITTEN)
def test_ordinary_code_is_left_as_written(text):
    assert Redactor().text(text) == text


PASSWORD = "Tr0ub4dor" + alnum(6)
REDACTED = [
    (f"password = '{PASSWORD}'", PASSWORD),
    (f"DB_PASSWORD={PASSWORD}", PASSWORD),
    ("MINIO_ROOT_PASSWORD=minioadmin", "minioadmin"),
    ('    password: "Harbor12345"', "Harbor12345"),
    ('    password: "qwerty123456"', "qwerty123456"),  # (a person's weak password is still one)
    ("DEEPSEEK_API_KEY=sk-" + alnum(32), None),
    ("MINIO_ROOT_PASSWORD: ${MINIO_ROOT_PASSWORD:-mokio12345}", "mokio12345"),
    (f"https://api.example.com/v1?api_key={PASSWORD}&date=2024-01-01", PASSWORD),
    (f"client = Client(api_key='{PASSWORD}')", PASSWORD),
    (f"Authorization: Bearer {alnum(32)}", None),
]


@pytest.mark.parametrize(("text", "secret"), REDACTED)
def test_the_credentials_beside_them_are_redacted(text, secret):
    out = Redactor().text(text)
    assert "[REDACTED:" in out
    if secret:
        assert secret not in out


def test_a_query_value_ends_at_the_next_parameter():
    out = Redactor().text(f"https://api.example.com/v1?api_key={PASSWORD}&date=2024-01-01")
    assert out == "https://api.example.com/v1?api_key=[REDACTED:secret-assignment]&date=2024-01-01"


def test_a_key_block_in_a_diff_keeps_the_diff_s_lines():
    diff = (
        "@@ -1,2 +1,6 @@\n context\n+-----BEGIN OPENSSH PRIVATE KEY-----\n+b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "+AAAAMwAAAAtzc2gtZWQyNTUxOQAAACB4kY2bH1\n+-----END OPENSSH PRIVATE KEY-----\n last"
    )
    out = Redactor().text(diff)
    assert out == "@@ -1,2 +1,6 @@\n context\n+[REDACTED:private-key]\n+\n+\n+\n last"


# Found on fresh real logs, second round (issue 28; benchmarks/redact_bench.py --fresh2): a URL's
# password slot that holds no secret.
URL_STAND_INS = [
    "DATABASE_URL=postgresql://user:password@localhost:5432/app",
    "# Format: postgresql://user:pass@host:port/database",
    "MASTER_DB_URL=postgres://postgres:your-password@localhost:5432/postgres",
    "DB_POOLER_URL=postgresql://postgres:[YOUR-PASSWORD]@db.[YOUR-REF].supabase.co:6543/postgres",
    "return `postgres://${encodeURIComponent(c.db_user)}:${encodeURIComponent(c.db_password)}@${c.db_host}:5432/x`;",
    "PG_CONNECTION_STRING: postgres://postgres:{POSTGRES_PASSWORD}@db:5432/{DB_NAME}",
    "database_url: `postgresql://tenant_${slug}:***@***`",
    "amqp://guest:guest@localhost:5672//",
    "process.env.DATABASE_URL = 'postgresql://test:test@localhost:5432/test';",
]


@pytest.mark.parametrize("text", URL_STAND_INS)
def test_a_url_password_slot_without_a_secret_is_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "password",
    ["Secure2025ChangeMe" + alnum(4), "hunter" + alnum(6), "Elishiba", PASSWORD],
)
def test_a_url_password_is_still_redacted(password):
    out = Redactor().text(f"DATABASE_URL=postgresql://app:{password}@db.internal:5432/app")
    assert out == "DATABASE_URL=postgresql://app:[REDACTED:url-password]@db.internal:5432/app"


# A shell default (${NAME:-value}) that is a reference, a header-only JWT, or the service's own name.
SHELL_DEFAULTS = [
    "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres}",
    'else\n  POSTGRES_PASSWORD="postgres"\nfi',
    "DATABASE_URL: postgres://postgres:${POSTGRES_PASSWORD:-postgres}@db:5432/postgres",
    "ANON_KEY: ${ANON_KEY:-eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.anon}",
    "SERVICE_KEY: ${SERVICE_KEY:-eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.service}",
    "GITHUB_TOKEN=${GITHUB_TOKEN:-$GITHUB_PERSONAL_ACCESS_TOKEN}",
]


@pytest.mark.parametrize("text", SHELL_DEFAULTS)
def test_a_default_that_is_no_secret_is_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "GOTRUE_JWT_SECRET: ${JWT_SECRET:-" + alnum(43) + "=}",
        "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres" + alnum(5) + "}",
        "REDIS_PASSWORD=hunterredis",
    ],
)
def test_a_default_that_is_a_secret_is_redacted(text):
    assert "[REDACTED:" in Redactor().text(text)


# A word after "secret:" that a sentence goes on from.
SENTENCES = [
    'echo "  Exposed secret: Security risk"',
    "- Exposed secrets: BLOCKING violations",
    " *   AUDIT_LOGS_DB_PASSWORD: Database password (required)",
    "RESEND_API_KEY: Required but not in .env.example",
]


@pytest.mark.parametrize("text", SENTENCES)
def test_a_sentence_about_a_secret_is_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "text",
    ["DB_PASSWORD: Correcthorsebattery", 'password: "Correcthorse battery"', "API_KEY: Tr0ub4dor" + alnum(8) + " here"],
)
def test_a_lone_word_or_a_mixed_one_is_still_a_secret(text):
    assert "[REDACTED:" in Redactor().text(text)


# Placeholders spelled as a repeated body, a test sentence, or words glued together.
SPELLED_PLACEHOLDERS = [
    '"secret_key": "nm_live_sk_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"',
    "const TEST_JWT_SECRET = 'test-jwt-secret-key-at-least-32-chars-long-for-security';",
    "docker run -d -e POSTGRES_PASSWORD=testpassword -p 5433:5432 postgres",
    "password = 'mysecretpassword'",
]


@pytest.mark.parametrize("text", SPELLED_PLACEHOLDERS)
def test_a_spelled_out_placeholder_is_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "JWT_SECRET=nextmavens-auth-secret-key-2024-production-secure",
        "JWT_SECRET=supersecretjwtsecretchangeinproduction2025",
        '"secret_key": "nm_live_sk_' + alnum(32) + '"',
        "TEST_SECRET=test_" + alnum(24),
        "DB_PASSWORD=correcthorsebatterystaple",
    ],
)
def test_a_chosen_secret_made_of_words_is_still_redacted(text):
    assert "[REDACTED:" in Redactor().text(text)


def _jwt(claims: dict) -> str:
    import base64
    import json

    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.{alnum(43)}"


def test_a_supabase_anon_key_is_public_and_its_service_key_is_not():
    """The anon key ("role": "anon") ships in every browser; the service-role key is the secret."""
    anon = _jwt({"iss": "supabase", "ref": "app", "role": "anon", "iat": 1700000000, "exp": 2000000000})
    service = _jwt({"iss": "supabase", "ref": "app", "role": "service_role", "iat": 1700000000})
    user = _jwt({"sub": "c8f7b3b1", "role": "authenticated", "exp": 2000000000})
    text = f"NEXT_PUBLIC_SUPABASE_ANON_KEY={anon}\nSUPABASE_ANON_KEY={anon}\nconst key = '{anon}'\n"
    assert Redactor().text(text) == text
    out = Redactor().text(f'SUPABASE_SERVICE_ROLE_KEY={service}\n{{"access_token":"{user}"}}')
    assert service not in out and user not in out
    assert out.count("[REDACTED:") == 2


def test_a_placeholder_escaped_in_html_is_left_as_written():
    for text in (
        '<code className="block">Authorization: Bearer &lt;token&gt;</code>',
        "<pre>API_KEY=&lt;your-key&gt;</pre>",
    ):
        assert Redactor().text(text) == text
    assert "[REDACTED:" in Redactor().text("<code>Authorization: Bearer " + alnum(32) + "</code>")


def test_a_url_password_holding_an_at_sign_is_redacted_whole():
    """``postgres://app:Elishiba@95@host``: the password runs to the last @ of the authority."""
    secret = "Pa" + alnum(6) + "@95"
    out = Redactor().text(f"DATABASE_URL=postgresql://app:{secret}@db.internal:5432/app and me@example.com")
    assert out == "DATABASE_URL=postgresql://app:[REDACTED:url-password]@db.internal:5432/app and me@example.com"


def test_analytics_and_consent_cookies_are_left_and_the_session_cookie_is_not():
    """ "Copy as cURL" carries every cookie of the page; only the session is a credential."""
    session = alnum(40)
    text = (
        "curl 'https://app.example.com/api' -b '_ga=GA1.1.1234567890.1765831426; "
        "OptanonAlertBoxClosed=2025-08-27T23:23:51.385Z; OptanonConsent=isGpcEnabled=0&datestamp=Mon+Dec+15; "
        "ab.storage.deviceId.b2da8a73-9f1d-4f8c-9270-4e64131abb20=g%3A572a8585-0ed4-2300-aced; "
        f"AMP_0276c606f5=JTdCJTIyZGV2aWNlSWQlMjIlM0El; _app_session={session}'"
    )
    out = Redactor().text(text)
    assert session not in out
    assert out == text.replace(session, "[REDACTED:cookie]")


def test_minified_code_after_a_secret_name_is_left_as_written():
    text = 'else this.url=String(e);if(this.credentials=t.credentials||this.credentials||"same-origin",!t.headers'
    assert Redactor().text(text) == text


# Code and references found on the second round: a shell's "required" message, a connection
# string built from references, Go pointers, the path of the file that holds a secret.
MORE_CODE = [
    "JWT_SECRET: ${JWT_SECRET:?JWT_SECRET is required}",
    "command: redis-server --requirepass ${REDIS_PASSWORD:?REDIS_PASSWORD is required}",
    "DATABASE_URL: postgresql://${POSTGRES_USER:-app}:${POSTGRES_PASSWORD}@postgres:5432/${POSTGRES_DB:-app}",
    "\tCorrelationToken: &correlationToken,",
    "\t\tcorrelationToken = *details.CorrelationToken",
    "kustomization.yaml:      - publish-token=secrets/hive/publish-token.secret",
]


@pytest.mark.parametrize("text", MORE_CODE)
def test_more_code_and_references_are_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "publish-token=" + alnum(12) + "/" + alnum(20) + ".Ab",
        "JWT_SECRET: ${JWT_SECRET:-" + alnum(32) + "}",
        "DATABASE_URL: postgresql://app:" + alnum(16) + "@postgres:5432/app",
    ],
)
def test_values_beside_them_are_still_redacted(text):
    assert "[REDACTED:" in Redactor().text(text)


SHAPED_PLACEHOLDERS = [
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "  key_a: |-\n    -----BEGIN OPENSSH PRIVATE KEY-----\n    "
    + "A" * 66
    + "==\n    -----END OPENSSH PRIVATE KEY-----",
    '"userId": "uuid-string",',
    '{"verificationToken": "uuid-from-attestation"}',
    "SESSION_SECRET=generate_another_random_32_character_string",
    '"api_key": "string"',
]


@pytest.mark.parametrize("text", SHAPED_PLACEHOLDERS)
def test_shaped_and_documented_placeholders_are_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "GITHUB_TOKEN=ghp_" + alnum(36),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
        + alnum(40)
        + "\n-----END OPENSSH PRIVATE KEY-----",
        "SESSION_SECRET=replace_" + alnum(24),
    ],
)
def test_the_real_ones_beside_them_are_redacted(text):
    assert "[REDACTED:" in Redactor().text(text)


def test_an_imei_is_no_card_number_and_an_amex_is():
    imei = 'imeis = append(imeis, new("490154203237518"))'
    assert Redactor().text(imei) == imei
    assert Redactor().text("card: 378282246310005") == "card: [REDACTED:credit-card]"
    assert Redactor().text("card: 4111111111111111") == "card: [REDACTED:credit-card]"


EXAMPLE_ACCOUNTS = [
    '{\n  "email": "user@example.com",\n  "password": "password123"\n}',
    "await registerUser({\n  email: 'newuser@example.com',\n  password: 'SecurePassword123!',\n});",
    'curl -d \'{"email":"test@example.com","password":"test123456"}\' localhost:9999/signup',
]


@pytest.mark.parametrize("text", EXAMPLE_ACCOUNTS)
def test_a_password_beside_a_documentation_account_is_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        '{"email":"admin@acme.io","password":"Admin123456"}',
        '{"email": "user@example.com", "password": "' + alnum(30) + '"}',
        "SMTP_USER=postmaster@mg.example.com\nSMTP_PASS=YNSyYqPUyiOqofwAq91N*7",
        "email: user@example.com\napi_key: " + alnum(32),
    ],
)
def test_a_real_account_password_or_a_key_is_still_redacted(text):
    assert "[REDACTED:" in Redactor().text(text)
