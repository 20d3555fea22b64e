"""Planted secrets, part 1: cloud services, registries, connection strings and .env lines
(see ``secret_corpus``)."""

from __future__ import annotations

import base64
import json

from secret_fakes import URLB64, Planted, alnum, b64, hexs, password, pick, planter, rng, uuid

SERVICES: list[Planted] = []
_plant = planter(SERVICES)

# Azure: Service Bus connection strings (az CLI output), SAS URLs, storage connection strings, api-key headers.
_k1, _k2 = b64(32), b64(32)
_ns = "Endpoint=sb://shop-prod.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="
_plant(
    "azure-service-bus",
    "output",
    json.dumps(
        {
            "keyName": "RootManageSharedAccessKey",
            "primaryConnectionString": _ns + _k1,
            "primaryKey": _k1,
            "secondaryConnectionString": _ns + _k2,
            "secondaryKey": _k2,
        },
        indent=2,
    ),
    _k1,
    _k2,
    source="az servicebus namespace authorization-rule keys list -g shop --namespace-name shop-prod"
    " -n RootManageSharedAccessKey",
)
_sig = b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
_plant(
    "azure-sas-url",
    "bash",
    'curl -o report.pdf "https://shopassets.blob.core.windows.net/uploads/report.pdf?sv=2022-11-02&ss=bfqt'
    f'&srt=sco&sp=rwdlacupiytfx&se=2026-12-31T23:59:59Z&st=2026-01-01T00:00:00Z&spr=https&sig={_sig}"',
    _sig,
)
_k = b64(64)
_plant(
    "azure-storage-connection",
    "read",
    '# storage\nAZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=shopassets;'
    f'AccountKey={_k};EndpointSuffix=core.windows.net"\nAZURE_CONTAINER=uploads\n',
    _k,
    source="/srv/shop/.env",
)
_k = hexs(32)
_plant(
    "azure-openai-api-key-header",
    "bash",
    "curl https://shop-ai.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-02-01 \\\n"
    f'  -H "Content-Type: application/json" \\\n  -H "api-key: {_k}" \\\n'
    '  -d \'{"messages":[{"role":"user","content":"ping"}]}\'',
    _k,
)
_k = hexs(32)
_plant(
    "azure-apim-subscription-key",
    "bash",
    f"curl -s https://shop-api.azure-api.net/orders/v1/orders -H 'Ocp-Apim-Subscription-Key: {_k}'",
    _k,
)

# Twilio: API key SID + secret, account SID + auth token.
_sk, _secret, _ac = hexs(32), alnum(32), hexs(32)
_plant(
    "twilio-api-key",
    "write",
    "from twilio.rest import Client\n\n"
    f'client = Client("SK{_sk}", "{_secret}", "AC{_ac}")\n'
    'client.messages.create(to="+15558675310", from_="+15017122661", body="Your order shipped")\n',
    _sk,
    _secret,
    _ac,
    source="/srv/shop/notify.py",
)
_ac, _token = hexs(32), hexs(32)
_plant(
    "twilio-auth-token",
    "bash",
    f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{_ac}/Messages.json "
    '--data-urlencode "Body=Hello" --data-urlencode "From=+15017122661" --data-urlencode "To=+15558675310" '
    f"-u AC{_ac}:{_token}",
    _ac,
    _token,
)

# Mailgun
_k = hexs(32)
_plant(
    "mailgun-key-curl",
    "bash",
    f"curl -s --user 'api:key-{_k}' https://api.mailgun.net/v3/mg.example.com/messages "
    "-F from='Shop <noreply@mg.example.com>' -F to=dev@example.com -F subject=Hello -F text='Testing'",
    _k,
)
_k = hexs(32)
_plant(
    "mailgun-key-code",
    "write",
    "import requests\n\n\ndef send(to, text):\n    return requests.post(\n"
    '        "https://api.mailgun.net/v3/mg.example.com/messages",\n'
    f'        auth=("api", "key-{_k}"),\n'
    '        data={"from": "noreply@mg.example.com", "to": to, "text": text},\n    )\n',
    _k,
    source="/srv/shop/mail.py",
)

# Datadog
_a, _b = hexs(32), hexs(40)
_plant(
    "datadog-headers",
    "bash",
    'curl -X POST "https://api.datadoghq.com/api/v2/series" -H "Accept: application/json" '
    f'-H "Content-Type: application/json" -H "DD-API-KEY: {_a}" -H "DD-APPLICATION-KEY: {_b}" -d @metrics.json',
    _a,
    _b,
)
_a, _b = hexs(32), hexs(40)
_plant(
    "datadog-env",
    "output",
    f"DD_API_KEY={_a}\nDD_SITE=datadoghq.eu\nDD_APP_KEY={_b}\nDD_ENV=prod\n",
    _a,
    _b,
    source="docker exec web env | grep ^DD_",
)
_k = alnum(40)
_plant(
    "x-api-key-header",
    "bash",
    f"curl https://api.shipfast.example/v1/labels -H 'x-api-key: {_k}' -H 'accept: application/json'",
    _k,
)

# OpenAI organization id
_k = alnum(24)
_plant(
    "openai-organization",
    "bash",
    'curl https://api.openai.com/v1/models -H "Authorization: Bearer $OPENAI_API_KEY" '
    f'-H "OpenAI-Organization: org-{_k}"',
    _k,
)

# Discord webhooks, Telegram bots
_k = pick(68, URLB64)
_plant(
    "discord-webhook",
    "bash",
    'curl -H "Content-Type: application/json" -d \'{"content": "deploy finished"}\' '
    f"https://discord.com/api/webhooks/1187654321098765432/{_k}",
    _k,
)
_bot, _k = str(rng.randint(10**8, 10**9 - 1)), "AA" + pick(33, URLB64)
_plant(
    "telegram-bot-url",
    "bash",
    f'curl -s "https://api.telegram.org/bot{_bot}:{_k}/sendMessage?chat_id=-1001234567890&text=deployed"',
    _k,
)
_bot, _k = str(rng.randint(10**8, 10**9 - 1)), "AA" + pick(33, URLB64)
_plant(
    "telegram-bot-code",
    "write",
    "from telegram.ext import Application\n\n"
    f'app = Application.builder().token("{_bot}:{_k}").build()\napp.run_polling()\n',
    _k,
    source="/srv/bot/main.py",
)

# npm and docker registries
_uuid_token, _auth = uuid(), b64(24)
_plant(
    "npm-authtoken",
    "read",
    f"//registry.npmjs.org/:_authToken={_uuid_token}\n@shop:registry=https://npm.shop.example/\n"
    f"//npm.shop.example/:_auth={_auth}\nalways-auth=true\n",
    _uuid_token,
    _auth,
    source="/home/dev/.npmrc",
)
_a = base64.b64encode(f"shopdeploy:{alnum(24)}".encode()).decode()
_b = base64.b64encode(f"dev:ghp_{alnum(36)}".encode()).decode()
_plant(
    "docker-config-auth",
    "output",
    json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": _a}, "ghcr.io": {"auth": _b}}}, indent="\t"),
    _a,
    _b,
    source="cat ~/.docker/config.json",
)

# Connection URLs and strings
_k = password(20)
_plant(
    "redis-url-password",
    "read",
    f"REDIS_URL=redis://:{_k}@cache.internal:6379/0\nCACHE_TTL=300\n",
    _k,
    source="/srv/shop/.env.production",
)
_k = password(18)
_plant(
    "adonet-password",
    "read",
    json.dumps(
        {
            "ConnectionStrings": {
                "Default": "Server=tcp:shop-sql.database.windows.net,1433;Initial Catalog=shop;"
                f"User ID=shopadmin;Password={_k};Encrypt=True;TrustServerCertificate=False;"
            },
            "Logging": {"LogLevel": {"Default": "Information"}},
        },
        indent=2,
    ),
    _k,
    source="/srv/shop/appsettings.Production.json",
)

# .env lines
_k = password(22)
_plant(
    "env-smtp-pass",
    "output",
    f"SMTP_HOST=smtp.mailgun.org\nSMTP_PORT=587\nSMTP_USER=postmaster@mg.example.com\nSMTP_PASS={_k}\n",
    _k,
    source="cat .env",
)
_k = password(16)
_plant(
    "env-db-pass",
    "read",
    "services:\n  api:\n    image: shop/api:1.4\n    environment:\n      - DB_HOST=db\n      - DB_USER=shop\n"
    f"      - DB_PASS={_k}\n",
    _k,
    source="/srv/shop/docker-compose.yml",
)
_k = hexs(32)
_plant(
    "sentry-dsn",
    "read",
    f"SENTRY_DSN=https://{_k}@o4506123.ingest.sentry.io/4506124\nSENTRY_ENVIRONMENT=production\n",
    _k,
    source="/srv/shop/.env",
)
