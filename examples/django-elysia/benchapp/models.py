"""The saas-slice tables, as the fixture made them (Django never migrates them)."""

from django.db import models
from django.utils import timezone


class User(models.Model):
    name = models.TextField()
    email = models.TextField(unique=True)
    age = models.IntegerField()
    created_at = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "users"


class Order(models.Model):
    # The foreign key is the database's; the model keeps the plain column so
    # that an insert never reads the user first.
    user_id = models.IntegerField()
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    # Django 3.2 cannot read back a database default, so the time of
    # insertion is the server's clock, set here.
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        managed = False
        db_table = "orders"
