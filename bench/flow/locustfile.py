# The flow of bench/flow/flow.json for Locust: log in, list, read one of
# the items, like it; each simulated user repeats it without waiting.
import random

from locust import FastHttpUser, SequentialTaskSet, constant, task


class Session(SequentialTaskSet):
    @task
    def login(self):
        r = self.client.post("/login", json={"user": f"u{random.randint(1, 1000)}"}, name="login")
        self.token = r.json()["token"]

    @task
    def items(self):
        r = self.client.get("/items", headers={"Authorization": f"Bearer {self.token}"}, name="list")
        self.id = random.choice(r.json()["items"])["id"]

    @task
    def read(self):
        self.client.get(f"/items/{self.id}", headers={"Authorization": f"Bearer {self.token}"}, name="read")

    @task
    def like(self):
        with self.client.post(f"/items/{self.id}/likes", json={}, headers={"Authorization": f"Bearer {self.token}"},
                              name="like", catch_response=True) as r:
            if r.status_code == 201:
                r.success()


class User(FastHttpUser):
    tasks = [Session]
    wait_time = constant(0)
