from django.urls import path

from passkeys import views

urlpatterns = [
    path("passkeys/register/begin", views.register_begin),
    path("passkeys/register/finish", views.register_finish),
    path("passkeys/add/begin", views.add_begin),
    path("passkeys/signin/begin", views.signin_begin),
    path("passkeys/signin/finish", views.signin_finish),
    path("passkeys/me", views.me),
    path("passkeys/signout", views.signout),
]
