"""Planted secrets, part 2: key files, Kubernetes, cookies, escapes and line continuations,
keys split in two, card numbers, capitalised names, and more of what gitleaks and
detect-secrets look for (see ``secret_corpus``)."""

from __future__ import annotations

import base64
import json
import string

from secret_fakes import ALNUM, B64, URLB64, Planted, alnum, b64, hexs, luhn, password, pick, planter, uuid

MORE: list[Planted] = []
_plant = planter(MORE)

# Key files
_public = b64(51)
_private = b64(48)
_mac = hexs(64)
_plant(
    "putty-private-key",
    "read",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20260101\nPublic-Lines: 2\n"
    f"{_public[:64]}\n{_public[64:]}\nPrivate-Lines: 1\n{_private}\nPrivate-MAC: {_mac}\n",
    _private,
    _mac,
    source="/home/dev/.ssh/deploy.ppk",
)
_key_id = hexs(40)
_pem = [b64(48) for _ in range(4)]
_plant(
    "gcp-service-account",
    "read",
    json.dumps(
        {
            "type": "service_account",
            "project_id": "shop-prod-381214",
            "private_key_id": _key_id,
            "private_key": "-----BEGIN PRIVATE KEY-----\n" + "\n".join(_pem) + "\n-----END PRIVATE KEY-----\n",
            "client_email": "deployer@shop-prod-381214.iam.gserviceaccount.com",
            "client_id": "104823710293847561029",
            "token_uri": "https://oauth2.googleapis.com/token",
        },
        indent=2,
    ),
    _key_id,
    *_pem,
    source="/srv/shop/keys/shop-prod-381214-4f2a9c1e8b7d.json",
)
_akid, _secret, _session = pick(16, string.ascii_uppercase + string.digits), pick(40, B64), b64(240)
_plant(
    "aws-sts-json",
    "output",
    json.dumps(
        {
            "Credentials": {
                "AccessKeyId": f"ASIA{_akid}",
                "SecretAccessKey": _secret,
                "SessionToken": "IQoJb3JpZ2luX2VjE" + _session,
                "Expiration": "2026-01-01T13:00:00+00:00",
            },
            "AssumedRoleUser": {
                "AssumedRoleId": "AROA3XFRBF535PLBIFPI4:deploy",
                "Arn": "arn:aws:sts::123456789012:assumed-role/deploy/deploy",
            },
        },
        indent=4,
    ),
    _akid,
    _secret,
    _session,
    source="aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name deploy",
)

# Kubernetes secrets
_user, _pw, _tok = (base64.b64encode(v.encode()).decode() for v in ("shopadmin", password(18), alnum(32)))
_plant(
    "kubernetes-secret-yaml",
    "output",
    "apiVersion: v1\ndata:\n"
    f"  api-token: {_tok}\n  password: {_pw}\n  username: {_user}\n"
    'kind: Secret\nmetadata:\n  creationTimestamp: "2026-01-01T00:00:00Z"\n  name: db-creds\n'
    "  namespace: shop\ntype: Opaque\n",
    _pw,
    _tok,
    source="kubectl get secret db-creds -n shop -o yaml",
)
_pw, _tok = (base64.b64encode(v.encode()).decode() for v in (password(20), alnum(40)))
_plant(
    "kubernetes-secret-json",
    "output",
    json.dumps(
        {
            "apiVersion": "v1",
            "data": {"STRIPE_KEY": _tok, "db-password": _pw},
            "kind": "Secret",
            "metadata": {"name": "payments", "namespace": "shop"},
            "type": "Opaque",
        },
        indent=4,
    ),
    _pw,
    _tok,
    source="kubectl get secret payments -n shop -o json",
)

# Cookies
_k = pick(43, URLB64)
_plant(
    "set-cookie-header",
    "output",
    "HTTP/2 302 \nlocation: /account\n"
    f"set-cookie: _shop_session={_k}; path=/; expires=Fri, 01 Jan 2027 00:00:00 GMT; secure; HttpOnly; SameSite=Lax\n"
    "content-length: 0\n",
    _k,
    source="curl -si -X POST https://shop.example.com/login -d user=dev -d pass=hunter2",
)
_a, _b = alnum(32), alnum(64)
_plant(
    "cookie-header",
    "bash",
    f"curl 'https://shop.example.com/api/cart' -H 'accept: application/json' -H 'cookie: sessionid={_a}; "
    f"csrftoken={_b}; theme=dark' --compressed",
    _a,
    _b,
)
_a, _b = pick(40, URLB64), alnum(26)
_plant(
    "curl-cookie-option",
    "bash",
    f"curl -b 'remember_token={_a}' https://admin.shop.example.com/orders.csv -o orders.csv && "
    f'curl --cookie "PHPSESSID={_b}" https://legacy.shop.example.com/report',
    _a,
    _b,
)

# A secret with a JSON \uXXXX escape inside it, as raw JSON in a command's output.
_a, _b = alnum(15), alnum(20)
_plant(
    "json-unicode-escape",
    "output",
    '{"id":118273,"note":"ci","scopes":["repo"],"value":"ghp_' + _a + "\\u0041" + _b + '"}',
    _a,
    _b,
    source="gh api /user/tokens/118273",
)

# A secret broken by a shell line continuation.
_a, _b = alnum(40), pick(46, URLB64)
_plant(
    "shell-line-continuation",
    "bash",
    f"export ANTHROPIC_API_KEY=sk-ant-api03-{_a}\\\n{_b}-AA\ncurl https://api.anthropic.com/v1/models "
    '-H "x-api-key: $ANTHROPIC_API_KEY"',
    _a,
    _b,
)

# Keys split across two events.
_a, _b = alnum(16), alnum(20)
_plant(
    "split-github-token",
    "split",
    (f"Here is the token for the CI job: ghp_{_a}", f"{_b} - store it in the repository secrets."),
    _a,
    _b,
)
_a, _b = alnum(10), alnum(10) + "T3BlbkFJ" + alnum(20)
_plant("split-openai-key", "split", (f"my key is sk-proj-{_a}", _b), _a, _b)
_pem = [b64(48) for _ in range(4)]
_plant(
    "split-private-key",
    "split",
    (
        "cat ~/.ssh/id_rsa gives:\n-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_pem[:2]),
        "\n".join(_pem[2:]) + "\n-----END RSA PRIVATE KEY-----",
    ),
    *_pem,
)

# Card numbers as JSON numbers.
_card = luhn("4242")
_plant(
    "card-json-number-input",
    "input",
    {"amount": 1999, "currency": "usd", "card": {"number": int(_card), "exp_month": 12, "exp_year": 2028}},
    _card,
)
_card = luhn("5555")
_plant(
    "card-json-number-output",
    "output",
    '{"customer":"cus_123","card":{"number":' + _card + ',"cvc":"123","exp":"12/28"}}',
    _card,
    source="cat fixtures/order.json",
)

# Key names with capitals.
_k = password(18)
_plant(
    "capitalised-password-key",
    "output",
    json.dumps({"Username": "svc-deploy", "Password": _k, "Url": "https://vault.shop.example"}),
    _k,
    source="op item get deploy --format json",
)
_k = password(18)
_plant("capitalised-password-input", "input", {"Server": "db.internal", "Password": _k}, _k)

# More of what gitleaks and detect-secrets look for, as people paste it.
_k = password(14)
_plant("curl-basic-auth", "bash", f"curl -u admin:{_k} https://jenkins.shop.example/job/deploy/build -X POST", _k)
_k = password(14)
_plant("mysql-password-option", "bash", f"mysql -h db.internal -u root -p{_k} shop < dump.sql", _k)
_k = password(16)
_plant("sshpass-password", "bash", f"sshpass -p '{_k}' ssh deploy@203.0.113.7 'systemctl restart shop'", _k)
_k = uuid()
_plant(
    "netrc-password",
    "read",
    f"machine api.heroku.com\n  login dev@example.com\n  password {_k}\nmachine git.heroku.com\n",
    _k,
    source="/home/dev/.netrc",
)
_k = pick(3, ALNUM) + "8Q~" + pick(34, ALNUM + "_~.-")
_plant(
    "azure-ad-client-secret",
    "write",
    "from azure.identity import ClientSecretCredential\n\n"
    f'credential = ClientSecretCredential("{uuid()}", "{uuid()}", "{_k}")\n',
    _k,
    source="/srv/shop/azure_auth.py",
)
_k = pick(28, URLB64)
_plant(
    "google-oauth-client-secret",
    "write",
    f'CLIENT = ("1043-shop.apps.googleusercontent.com", "GOCSPX-{_k}")\n',
    _k,
    source="/srv/shop/oauth.py",
)
_k = pick(90, URLB64)
_plant("vault-token", "bash", f"vault login hvs.{_k}", _k)
_k = alnum(32)
_plant(
    "stripe-webhook-secret",
    "output",
    f"> Ready! You are using Stripe API Version [2024-06-20]. Your webhook signing secret is whsec_{_k} (^C to quit)",
    _k,
    source="stripe listen --forward-to localhost:3000/webhooks",
)
_k = pick(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
_plant(
    "age-secret-key",
    "output",
    f"# created: 2026-01-01T00:00:00Z\n# public key: age1{pick(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}\n"
    f"AGE-SECRET-KEY-1{_k}",
    _k,
    source="age-keygen",
)
_k = alnum(52)
_plant("groq-key-in-prompt", "prompt", f"use this groq key for the eval run: gsk_{_k} thanks", _k)
