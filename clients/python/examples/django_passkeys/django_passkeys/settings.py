"""A minimal Django project whose sign-up and sign-in are passkeys through passkeyd (no py_webauthn, no tables:
passkeyd stores users and credentials; Django keeps who is signed in, in a signed cookie session)."""
import os

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-not-secret")
DEBUG = os.environ.get("DJANGO_DEBUG", "") == "1"
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,testserver").split(",")
INSTALLED_APPS = ["django.contrib.sessions", "passkeys"]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
]
ROOT_URLCONF = "django_passkeys.urls"
DATABASES = {}
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = not DEBUG
USE_TZ = True

# passkeyd: where it runs and the backend's API key (PASSKEYD_API_KEYS on the passkeyd side).
PASSKEYD_URL = os.environ.get("PASSKEYD_URL", "http://127.0.0.1:8080")
PASSKEYD_API_KEY = os.environ.get("PASSKEYD_API_KEY")
PASSKEYD_TIMEOUT = float(os.environ.get("PASSKEYD_TIMEOUT", "10"))
