import os
from fastapi import FastAPI
from sqlalchemy import create_engine

engine = create_engine(os.environ["PG_DSN"])
api = FastAPI()

@api.get("/ping")
def ping():
    return {"ok": True}
