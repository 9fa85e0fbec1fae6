#!/usr/bin/env python3
"""boto3 against a Granary proxy: what Python users of the S3 API rely on.

Usage: boto3_suite.py ENDPOINT ACCESS_KEY SECRET_KEY SCRATCH_DIR

Prints one line per check, "PASS <name>" or "FAIL <name>: <why>", then "SUMMARY passed=N failed=M".
Exits 0 only when every check passed; 2 when boto3 cannot be imported (Boto3IT says how to install it).
Checks run in order and later ones use what earlier ones created; a failed check does not stop the others.
"""
import base64
import concurrent.futures
import contextlib
import datetime
import hashlib
import io
import os
import sys
import time
import traceback
import types
import unittest.mock
import urllib.error
import urllib.parse
import urllib.request

try:
    import boto3
    import botocore
    from boto3.s3.transfer import TransferConfig
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError as e:  # reported by Boto3IT with the install hint
    print("BOTO3_MISSING %s" % e, flush=True)
    sys.exit(2)

MIB = 1024 * 1024
BUCKET = "boto3-suite"
MANY = 1500  # > 1000: a ListObjectsV2 page holds at most 1000 keys, so the paginator has to continue

endpoint, access_key, secret_key, scratch = sys.argv[1:5]
os.makedirs(scratch, exist_ok=True)
print("INFO boto3=%s botocore=%s python=%s" % (boto3.__version__, botocore.__version__, sys.version.split()[0]),
      flush=True)


def client(secret=None, **overrides):
    # s3v4 for the bulk of the checks; the sigv2 checks below use boto3's defaults (SigV2 presigned URLs).
    settings = dict(signature_version="s3v4", s3={"addressing_style": "path"},
                    retries={"max_attempts": 2, "mode": "standard"}, connect_timeout=10, read_timeout=60,
                    max_pool_connections=16)
    settings.update(overrides)
    cfg = Config(**settings)
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=access_key,
                        aws_secret_access_key=secret or secret_key, region_name="us-east-1", config=cfg)


s3 = client()
results = []


def check(name):
    """Runs the decorated function now as one check; an exception (AssertionError included) fails it."""
    def run(fn):
        try:
            fn()
            results.append(True)
            print("PASS %s" % name, flush=True)
        except Exception as e:  # noqa: BLE001 - every failure becomes a FAIL line
            results.append(False)
            detail = "%s: %s" % (type(e).__name__, e)
            if isinstance(e, ClientError):
                detail += " | response=%r" % ({k: v for k, v in e.response.items() if k != "ResponseMetadata"},)
            print("FAIL %s: %s" % (name, detail.replace("\n", " ")), flush=True)
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
        return fn
    return run


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


def error_code(call):
    try:
        call()
    except ClientError as e:
        return e.response.get("Error", {}).get("Code"), e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    raise AssertionError("the call succeeded, an error was expected")


def payload(seed, size):
    """Deterministic bytes, so a failure can be reproduced."""
    out = bytearray()
    block = hashlib.sha256(str(seed).encode()).digest()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block * 64
    return bytes(out[:size])


SMALL = payload(1, 100_000)
META = {"purpose": "integration-test", "owner": "boto3"}


@check("create_bucket")
def _():
    r = s3.create_bucket(Bucket=BUCKET)
    expect(r["ResponseMetadata"]["HTTPStatusCode"] == 200, r)
    s3.head_bucket(Bucket=BUCKET)
    loc = s3.get_bucket_location(Bucket=BUCKET).get("LocationConstraint")
    expect(loc in (None, "", "us-east-1"), "location %r" % loc)


@check("create_existing_bucket_already_owned")
def _():
    code, status = error_code(lambda: s3.create_bucket(Bucket=BUCKET))
    expect((code, status) == ("BucketAlreadyOwnedByYou", 409), "%s %s" % (status, code))


@check("list_buckets")
def _():
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    expect(BUCKET in names, "%s not in %s" % (BUCKET, names))


@check("put_get_object_byte_exact_with_metadata_and_content_type")
def _():
    put = s3.put_object(Bucket=BUCKET, Key="small/data.bin", Body=SMALL, Metadata=META,
                        ContentType="application/x-granary-test")
    md5 = hashlib.md5(SMALL).hexdigest()
    expect(put["ETag"] == '"%s"' % md5, "PUT ETag %s, expected the MD5 %s" % (put["ETag"], md5))
    got = s3.get_object(Bucket=BUCKET, Key="small/data.bin")
    body = got["Body"].read()
    expect(body == SMALL, "GET body differs: %d bytes, sha256 %s" % (len(body), hashlib.sha256(body).hexdigest()))
    expect(got["ContentLength"] == len(SMALL), "ContentLength %s" % got["ContentLength"])
    expect(got["ContentType"] == "application/x-granary-test", "ContentType %r" % got["ContentType"])
    expect(got["Metadata"] == META, "Metadata %r" % got["Metadata"])
    expect(got["ETag"] == put["ETag"], "GET ETag %s, PUT ETag %s" % (got["ETag"], put["ETag"]))


@check("head_object")
def _():
    h = s3.head_object(Bucket=BUCKET, Key="small/data.bin")
    expect(h["ContentLength"] == len(SMALL), "ContentLength %s" % h["ContentLength"])
    expect(h["Metadata"] == META, "Metadata %r" % h["Metadata"])
    expect(h["ContentType"] == "application/x-granary-test", "ContentType %r" % h["ContentType"])
    expect("LastModified" in h, "no Last-Modified")
    code, status = error_code(lambda: s3.head_object(Bucket=BUCKET, Key="small/missing.bin"))
    expect(status == 404, "HEAD of a missing key: %s %s" % (status, code))


@check("get_object_range_and_missing_key")
def _():
    got = s3.get_object(Bucket=BUCKET, Key="small/data.bin", Range="bytes=1000-1999")
    body = got["Body"].read()
    expect(body == SMALL[1000:2000], "range body differs (%d bytes)" % len(body))
    expect(got["ContentRange"] == "bytes 1000-1999/%d" % len(SMALL), "Content-Range %r" % got["ContentRange"])
    code, status = error_code(lambda: s3.get_object(Bucket=BUCKET, Key="small/missing.bin"))
    expect((code, status) == ("NoSuchKey", 404), "GET of a missing key: %s %s" % (status, code))


@check("empty_object")
def _():
    put = s3.put_object(Bucket=BUCKET, Key="small/empty", Body=b"")
    expect(put["ETag"] == '"d41d8cd98f00b204e9800998ecf8427e"', "ETag %s" % put["ETag"])
    got = s3.get_object(Bucket=BUCKET, Key="small/empty")
    expect(got["Body"].read() == b"" and got["ContentLength"] == 0, "ContentLength %s" % got["ContentLength"])
    expect(s3.head_object(Bucket=BUCKET, Key="small/empty")["ContentLength"] == 0, "HEAD size")


@check("conditional_get")
def _():
    etag = s3.head_object(Bucket=BUCKET, Key="small/data.bin")["ETag"]
    code, status = error_code(lambda: s3.get_object(Bucket=BUCKET, Key="small/data.bin", IfNoneMatch=etag))
    expect(status == 304, "If-None-Match with the ETag: %s %s" % (status, code))
    code, status = error_code(lambda: s3.get_object(Bucket=BUCKET, Key="small/data.bin", IfMatch='"0123"'))
    expect((code, status) == ("PreconditionFailed", 412), "If-Match with another ETag: %s %s" % (status, code))
    got = s3.get_object(Bucket=BUCKET, Key="small/data.bin", IfMatch=etag)
    expect(got["Body"].read() == SMALL, "If-Match with the ETag: body differs")
    got = s3.get_object(Bucket=BUCKET, Key="small/data.bin", IfNoneMatch='"0123"')
    expect(got["Body"].read() == SMALL, "If-None-Match with another ETag: body differs")


@check("content_md5_mismatch_bad_digest")
def _():
    code, status = error_code(lambda: s3.put_object(Bucket=BUCKET, Key="small/bad-md5", Body=b"abc",
                                                    ContentMD5=base64.b64encode(hashlib.md5(b"abd").digest()).decode()))
    expect((code, status) == ("BadDigest", 400), "%s %s" % (status, code))
    code, status = error_code(lambda: s3.head_object(Bucket=BUCKET, Key="small/bad-md5"))
    expect(status == 404, "an object with a wrong Content-MD5 was stored")
    put = s3.put_object(Bucket=BUCKET, Key="small/good-md5", Body=b"abc",
                        ContentMD5=base64.b64encode(hashlib.md5(b"abc").digest()).decode())
    expect(put["ETag"] == '"%s"' % hashlib.md5(b"abc").hexdigest(), "ETag %s" % put["ETag"])


ODD_KEYS = ["odd/naïve café/日本語 ファイル.txt", "odd/plus+and%percent&amp=eq?.txt", "odd/spaces  and ~tilde*.txt",
            "odd/emoji 🚀/x"]


@check("unicode_and_special_character_keys")
def _():
    for k in ODD_KEYS:
        s3.put_object(Bucket=BUCKET, Key=k, Body=k.encode("utf-8"))
    for k in ODD_KEYS:
        body = s3.get_object(Bucket=BUCKET, Key=k)["Body"].read()
        expect(body == k.encode("utf-8"), "GET %r returned %r" % (k, body[:100]))
    # boto3 asks for encoding-type=url and decodes the keys it gets back
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="odd/").get("Contents", [])]
    expect(listed == sorted(ODD_KEYS, key=lambda k: k.encode("utf-8")), "listed %r" % listed)
    r = s3.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": k} for k in ODD_KEYS]})
    expect(sorted(d["Key"] for d in r.get("Deleted", [])) == sorted(ODD_KEYS), "Deleted %r Errors %r"
           % (r.get("Deleted"), r.get("Errors")))
    expect(s3.list_objects_v2(Bucket=BUCKET, Prefix="odd/")["KeyCount"] == 0, "keys left under odd/")


@check("list_objects_v2_prefix_delimiter")
def _():
    keys = ["tree/a.txt", "tree/d.txt", "tree/sub/b.txt", "tree/sub/c.txt", "tree/sub2/x/y.txt", "treetop.txt"]
    for k in keys:
        s3.put_object(Bucket=BUCKET, Key=k, Body=k.encode())
    r = s3.list_objects_v2(Bucket=BUCKET, Prefix="tree/", Delimiter="/")
    got = [o["Key"] for o in r.get("Contents", [])]
    prefixes = [p["Prefix"] for p in r.get("CommonPrefixes", [])]
    expect(got == ["tree/a.txt", "tree/d.txt"], "Contents %r" % got)
    expect(prefixes == ["tree/sub/", "tree/sub2/"], "CommonPrefixes %r" % prefixes)
    expect(r["KeyCount"] == 4, "KeyCount %r (2 keys + 2 prefixes)" % r["KeyCount"])
    expect(not r["IsTruncated"], "IsTruncated")
    sizes = {o["Key"]: o["Size"] for o in r["Contents"]}
    expect(sizes == {"tree/a.txt": 10, "tree/d.txt": 10}, "sizes %r" % sizes)
    r = s3.list_objects_v2(Bucket=BUCKET, Prefix="tree/sub/")
    expect([o["Key"] for o in r.get("Contents", [])] == ["tree/sub/b.txt", "tree/sub/c.txt"], r.get("Contents"))


@check("paginator_1500_keys_each_exactly_once")
def _():
    keys = ["many/%05d-%s" % (i, "x" * (i % 7)) for i in range(MANY)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        for f in [pool.submit(s3.put_object, Bucket=BUCKET, Key=k, Body=k.encode()) for k in keys]:
            f.result()
    for page_size in (None, 400):  # the server's 1,000-key pages, then smaller ones
        cfg = {} if page_size is None else {"PageSize": page_size}
        seen, pages = [], 0
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix="many/",
                                                                PaginationConfig=cfg):
            pages += 1
            seen += [o["Key"] for o in page.get("Contents", [])]
        expect(len(seen) == MANY and len(set(seen)) == MANY,
               "page size %s: %d keys listed, %d distinct, %d expected" % (page_size, len(seen), len(set(seen)), MANY))
        expect(seen == sorted(keys), "page size %s: keys not in UTF-8 binary order or not the ones put" % page_size)
        expect(pages == (2 if page_size is None else 4), "page size %s: %d pages" % (page_size, pages))
    # ListObjects (V1) with its Marker pagination
    seen = []
    for page in s3.get_paginator("list_objects").paginate(Bucket=BUCKET, Prefix="many/",
                                                         PaginationConfig={"PageSize": 700}):
        seen += [o["Key"] for o in page.get("Contents", [])]
    expect(seen == sorted(keys), "ListObjects V1: %d keys, %d distinct" % (len(seen), len(set(seen))))


BIG = os.path.join(scratch, "big.bin")
BIG_SIZE = 25 * MIB
CHUNK = 8 * MIB


@check("upload_file_multipart_etag_dash4")
def _():
    with open(BIG, "wb") as f:
        f.write(payload(7, BIG_SIZE))
    cfg = TransferConfig(multipart_threshold=CHUNK, multipart_chunksize=CHUNK, max_concurrency=4)
    s3.upload_file(BIG, BUCKET, "big/file.bin", Config=cfg, ExtraArgs={"Metadata": {"kind": "multipart"},
                                                                      "ContentType": "application/octet-stream"})
    h = s3.head_object(Bucket=BUCKET, Key="big/file.bin")
    etag = h["ETag"].strip('"')
    with open(BIG, "rb") as f:
        data = f.read()
    parts = [hashlib.md5(data[i:i + CHUNK]).digest() for i in range(0, len(data), CHUNK)]
    expected = "%s-%d" % (hashlib.md5(b"".join(parts)).hexdigest(), len(parts))
    expect(etag.endswith("-4"), "multipart ETag %s does not end with -4" % etag)
    expect(etag == expected, "multipart ETag %s, S3 computes %s" % (etag, expected))
    expect(h["ContentLength"] == BIG_SIZE, "head_object ContentLength %s, expected %d" % (h["ContentLength"], BIG_SIZE))
    expect(h["Metadata"] == {"kind": "multipart"}, "Metadata %r" % h["Metadata"])


@check("download_file_byte_exact")
def _():
    out = os.path.join(scratch, "big.download")
    cfg = TransferConfig(multipart_threshold=CHUNK, multipart_chunksize=CHUNK, max_concurrency=4)
    s3.download_file(BUCKET, "big/file.bin", out, Config=cfg)  # ranged GETs in parallel
    expect(os.path.getsize(out) == BIG_SIZE, "downloaded %d bytes" % os.path.getsize(out))
    with open(BIG, "rb") as a, open(out, "rb") as b:
        expect(hashlib.sha256(a.read()).digest() == hashlib.sha256(b.read()).digest(), "download differs")
    os.remove(out)


@check("multipart_low_level_list_parts_and_abort")
def _():
    key = "big/aborted.bin"
    up = s3.create_multipart_upload(Bucket=BUCKET, Key=key)["UploadId"]
    part = payload(9, 5 * MIB)
    e1 = s3.upload_part(Bucket=BUCKET, Key=key, UploadId=up, PartNumber=1, Body=part)["ETag"]
    expect(e1 == '"%s"' % hashlib.md5(part).hexdigest(), "part ETag %s" % e1)
    parts = s3.list_parts(Bucket=BUCKET, Key=key, UploadId=up)["Parts"]
    expect([(p["PartNumber"], p["ETag"], p["Size"]) for p in parts] == [(1, e1, len(part))], "parts %r" % parts)
    uploads = s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])
    expect((key, up) in [(u["Key"], u["UploadId"]) for u in uploads], "uploads %r" % uploads)
    s3.abort_multipart_upload(Bucket=BUCKET, Key=key, UploadId=up)
    code, status = error_code(lambda: s3.list_parts(Bucket=BUCKET, Key=key, UploadId=up))
    expect((code, status) == ("NoSuchUpload", 404), "list_parts after abort: %s %s" % (status, code))
    code, status = error_code(lambda: s3.head_object(Bucket=BUCKET, Key=key))
    expect(status == 404, "aborted upload left an object: %s" % status)


@check("presigned_get_s3v4_byte_exact")
def _():
    url = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "small/data.bin"}, ExpiresIn=300)
    expect("X-Amz-Signature=" in url and "X-Amz-Algorithm=AWS4-HMAC-SHA256" in url, "not a SigV4 URL: %s" % url)
    with urllib.request.urlopen(url, timeout=30) as r:
        expect(r.status == 200, "status %s" % r.status)
        body = r.read()
    expect(body == SMALL, "presigned GET body differs (%d bytes)" % len(body))


@check("presigned_get_wrong_signature_403")
def _():
    url = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "small/data.bin"}, ExpiresIn=300)
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    sig = dict(query)["X-Amz-Signature"]
    bad = ("0" if sig[0] != "0" else "1") + sig[1:]
    query = [(k, bad if k == "X-Amz-Signature" else v) for k, v in query]
    url = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
    try:
        urllib.request.urlopen(url, timeout=30)
        raise AssertionError("a presigned URL with a wrong signature was served")
    except urllib.error.HTTPError as e:
        body = e.read().decode("utf-8", "replace")
        expect(e.code == 403, "status %s, expected 403: %s" % (e.code, body))
        expect("<Code>SignatureDoesNotMatch</Code>" in body, "error body %s" % body)


@check("presigned_put_s3v4")
def _():
    url = s3.generate_presigned_url("put_object", Params={"Bucket": BUCKET, "Key": "presigned/put.bin"},
                                    ExpiresIn=300)
    data = payload(11, 300_000)
    req = urllib.request.Request(url, data=data, method="PUT", headers={"Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req, timeout=30) as r:
        expect(r.status == 200, "status %s" % r.status)
        expect(r.headers.get("ETag") == '"%s"' % hashlib.md5(data).hexdigest(), "ETag %s" % r.headers.get("ETag"))
    expect(s3.get_object(Bucket=BUCKET, Key="presigned/put.bin")["Body"].read() == data, "stored body differs")


@contextlib.contextmanager
def signer_clock_behind(seconds):
    """botocore signs as if its clock were `seconds` behind: a URL presigned to expire in less than that has
    expired already, with no waiting. SigV4 takes the time from botocore.auth.get_current_datetime (botocore
    1.31+; datetime.datetime.utcnow before), SigV2 presigning from botocore.auth.time.time."""
    import botocore.auth as auth
    with contextlib.ExitStack() as stack:
        if hasattr(auth, "get_current_datetime"):
            real = auth.get_current_datetime
            stack.enter_context(unittest.mock.patch.object(
                auth, "get_current_datetime", lambda *a, **k: real(*a, **k) - datetime.timedelta(seconds=seconds)))
        else:
            class Behind(datetime.datetime):
                @classmethod
                def utcnow(cls):
                    return datetime.datetime.utcnow() - datetime.timedelta(seconds=seconds)
            stack.enter_context(unittest.mock.patch.object(
                auth, "datetime", types.SimpleNamespace(datetime=Behind, timedelta=datetime.timedelta)))
        stack.enter_context(unittest.mock.patch.object(
            auth, "time", types.SimpleNamespace(time=lambda: time.time() - seconds, strftime=time.strftime,
                                                gmtime=time.gmtime)))
        yield


@check("presigned_get_expired_403")
def _():
    with signer_clock_behind(3600):
        url = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "small/data.bin"},
                                        ExpiresIn=60)
    try:
        urllib.request.urlopen(url, timeout=30)
        raise AssertionError("an expired presigned URL was served")
    except urllib.error.HTTPError as e:
        body = e.read().decode("utf-8", "replace")
        expect(e.code == 403 and "<Code>AccessDenied</Code>" in body, "status %s: %s" % (e.code, body))


def default_client():
    """boto3 as a user makes it, no Config: it presigns URLs for a custom endpoint with Signature Version 2."""
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=access_key, aws_secret_access_key=secret_key,
                        region_name="us-east-1")


def http_error(url, **kw):
    try:
        urllib.request.urlopen(urllib.request.Request(url, **kw), timeout=30)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    raise AssertionError("served: %s" % url)


@check("presigned_get_default_sigv2_byte_exact")
def _():
    url = default_client().generate_presigned_url("get_object", Params={
        "Bucket": BUCKET, "Key": "small/data.bin", "ResponseContentType": "text/x-granary"}, ExpiresIn=300)
    expect("AWSAccessKeyId=" in url and "Signature=" in url and "X-Amz-" not in url, "not a SigV2 URL: %s" % url)
    with urllib.request.urlopen(url, timeout=30) as r:
        expect(r.status == 200, "status %s" % r.status)
        expect(r.headers.get("Content-Type") == "text/x-granary", "Content-Type %s" % r.headers.get("Content-Type"))
        body = r.read()
    expect(body == SMALL, "presigned GET body differs (%d bytes)" % len(body))


@check("presigned_put_default_sigv2")
def _():
    url = default_client().generate_presigned_url("put_object", Params={
        "Bucket": BUCKET, "Key": "presigned/v2-put.bin", "ContentType": "application/octet-stream"}, ExpiresIn=300)
    data = payload(12, 200_000)
    req = urllib.request.Request(url, data=data, method="PUT", headers={"Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req, timeout=30) as r:
        expect(r.status == 200, "status %s" % r.status)
    expect(s3.get_object(Bucket=BUCKET, Key="presigned/v2-put.bin")["Body"].read() == data, "stored body differs")
    # The same URL with another Content-Type than was signed: refused, and the object is unchanged.
    status, body = http_error(url, data=payload(13, 1000), method="PUT", headers={"Content-Type": "text/plain"})
    expect(status == 403 and "<Code>SignatureDoesNotMatch</Code>" in body, "status %s: %s" % (status, body))
    expect(s3.get_object(Bucket=BUCKET, Key="presigned/v2-put.bin")["Body"].read() == data, "a refused PUT stored")


@check("presigned_get_sigv2_wrong_signature_or_expired_403")
def _():
    c = default_client()
    url = c.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "small/data.bin"}, ExpiresIn=300)
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    sig = dict(query)["Signature"]
    bad = ("A" if sig[0] != "A" else "B") + sig[1:]
    query = [(k, bad if k == "Signature" else v) for k, v in query]
    status, body = http_error(urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query))))
    expect(status == 403 and "<Code>SignatureDoesNotMatch</Code>" in body, "wrong signature: %s %s" % (status, body))
    with signer_clock_behind(3600):
        expired = c.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "small/data.bin"},
                                           ExpiresIn=60)
    expect("Expires=" in expired, "not a SigV2 URL: %s" % expired)
    status, body = http_error(expired)
    expect(status == 403 and "<Code>AccessDenied</Code>" in body, "expired: %s %s" % (status, body))


@check("header_auth_sigv2_put_get_delete")
def _():
    v2 = client(signature_version="s3")
    data = payload(14, 50_000)
    v2.put_object(Bucket=BUCKET, Key="sigv2/obj.bin", Body=data, Metadata={"via": "sigv2"})
    got = v2.get_object(Bucket=BUCKET, Key="sigv2/obj.bin")
    expect(got["Body"].read() == data and got["Metadata"] == {"via": "sigv2"}, "SigV2 round trip differs")
    code, status = error_code(lambda: client(secret="wrong" + secret_key, signature_version="s3").get_object(
        Bucket=BUCKET, Key="sigv2/obj.bin"))
    expect((code, status) == ("SignatureDoesNotMatch", 403), "wrong secret: %s %s" % (status, code))
    v2.delete_object(Bucket=BUCKET, Key="sigv2/obj.bin")
    code, status = error_code(lambda: s3.head_object(Bucket=BUCKET, Key="sigv2/obj.bin"))
    expect(status == 404, "deleted object: %s" % status)


@check("copy_object")
def _():
    r = s3.copy_object(Bucket=BUCKET, Key="copies/data-copy.bin",
                       CopySource={"Bucket": BUCKET, "Key": "small/data.bin"})
    expect(r["CopyObjectResult"]["ETag"] == '"%s"' % hashlib.md5(SMALL).hexdigest(),
           "copy ETag %s" % r["CopyObjectResult"]["ETag"])
    got = s3.get_object(Bucket=BUCKET, Key="copies/data-copy.bin")
    expect(got["Body"].read() == SMALL, "copy differs")
    expect(got["Metadata"] == META, "copy metadata %r (MetadataDirective COPY keeps it)" % got["Metadata"])
    expect(got["ContentType"] == "application/x-granary-test", "copy ContentType %r" % got["ContentType"])
    r = s3.copy_object(Bucket=BUCKET, Key="copies/data-replaced.bin", MetadataDirective="REPLACE",
                       Metadata={"replaced": "yes"}, ContentType="text/plain",
                       CopySource={"Bucket": BUCKET, "Key": "small/data.bin"})
    got = s3.head_object(Bucket=BUCKET, Key="copies/data-replaced.bin")
    expect(got["Metadata"] == {"replaced": "yes"}, "REPLACE metadata %r" % got["Metadata"])
    expect(got["ContentType"].startswith("text/plain"), "REPLACE ContentType %r" % got["ContentType"])


@check("managed_copy_multipart_upload_part_copy")
def _():
    # client.copy above its multipart threshold: CreateMultipartUpload, UploadPartCopy with ranges, Complete.
    body = payload(11, 12 * MIB)
    s3.put_object(Bucket=BUCKET, Key="copies/source-12mib.bin", Body=body)
    cfg = TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=5 * MIB, max_concurrency=3)
    s3.copy({"Bucket": BUCKET, "Key": "copies/source-12mib.bin"}, BUCKET, "copies/managed-copy.bin", Config=cfg)
    h = s3.head_object(Bucket=BUCKET, Key="copies/managed-copy.bin")
    expect(h["ETag"].strip('"').endswith("-3"), "managed copy ETag %s: not 3 parts" % h["ETag"])
    got = s3.get_object(Bucket=BUCKET, Key="copies/managed-copy.bin")["Body"].read()
    expect(hashlib.sha256(got).digest() == hashlib.sha256(body).digest(), "managed copy differs")


@check("standard_headers_stored")
def _():
    # S3 keeps these as system metadata and returns them on GET and HEAD (browsers and CDNs rely on them)
    s3.put_object(Bucket=BUCKET, Key="small/headers.txt", Body=b"headers", ContentType="text/plain",
                  CacheControl="max-age=60", ContentDisposition='attachment; filename="h.txt"',
                  ContentLanguage="en", ContentEncoding="identity")
    for name, r in (("HEAD", s3.head_object(Bucket=BUCKET, Key="small/headers.txt")),
                    ("GET", s3.get_object(Bucket=BUCKET, Key="small/headers.txt"))):
        got = {k: r.get(k) for k in ("CacheControl", "ContentDisposition", "ContentLanguage", "ContentEncoding")}
        expect(got == {"CacheControl": "max-age=60", "ContentDisposition": 'attachment; filename="h.txt"',
                       "ContentLanguage": "en", "ContentEncoding": "identity"},
               "%s returned %r; headers %r" % (name, got, r["ResponseMetadata"]["HTTPHeaders"]))


@check("response_header_overrides")
def _():
    # GetObject's response-* parameters replace the stored headers in the answer: presigned download links
    # name the saved file with response-content-disposition
    r = s3.get_object(Bucket=BUCKET, Key="small/data.bin", ResponseContentType="text/x-override",
                      ResponseContentDisposition='attachment; filename="override.bin"', ResponseCacheControl="no-cache")
    got = {k: r.get(k) for k in ("ContentType", "ContentDisposition", "CacheControl")}
    expect(got == {"ContentType": "text/x-override", "ContentDisposition": 'attachment; filename="override.bin"',
                   "CacheControl": "no-cache"}, "GetObject returned %r" % got)
    url = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "small/data.bin",
                                    "ResponseContentDisposition": 'attachment; filename="link.bin"'}, ExpiresIn=300)
    with urllib.request.urlopen(url, timeout=30) as resp:
        cd = resp.headers.get("Content-Disposition")
        expect(resp.read() == SMALL, "presigned body differs")
    expect(cd == 'attachment; filename="link.bin"', "presigned GET Content-Disposition %r" % cd)


@check("get_object_part_number")
def _():
    # the multipart object of upload_file: 8 + 8 + 8 + 1 MiB
    h = s3.head_object(Bucket=BUCKET, Key="big/file.bin", PartNumber=1)
    expect(h["ContentLength"] == CHUNK and h.get("PartsCount") == 4,
           "HEAD ?partNumber=1: %s %r" % (h["ResponseMetadata"]["HTTPStatusCode"], h["ResponseMetadata"]["HTTPHeaders"]))
    r = s3.get_object(Bucket=BUCKET, Key="big/file.bin", PartNumber=4)
    body = r["Body"].read()
    with open(BIG, "rb") as f:
        f.seek(3 * CHUNK)
        expected = f.read()
    expect(r["ResponseMetadata"]["HTTPStatusCode"] == 206 and body == expected and r.get("PartsCount") == 4
           and r.get("ContentRange") == "bytes %d-%d/%d" % (3 * CHUNK, BIG_SIZE - 1, BIG_SIZE),
           "GET ?partNumber=4: status %s, %d bytes (the part has %d), headers %r"
           % (r["ResponseMetadata"]["HTTPStatusCode"], len(body), len(expected), r["ResponseMetadata"]["HTTPHeaders"]))


@check("delete_objects")
def _():
    keys = ["tree/a.txt", "tree/d.txt", "tree/sub/b.txt", "tree/sub/c.txt", "tree/sub2/x/y.txt", "treetop.txt"]
    r = s3.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": k} for k in keys + ["tree/never-existed"]]})
    deleted = sorted(d["Key"] for d in r.get("Deleted", []))
    expect(deleted == sorted(keys + ["tree/never-existed"]), "Deleted %r Errors %r" % (deleted, r.get("Errors")))
    expect(not r.get("Errors"), "Errors %r" % r.get("Errors"))
    left = s3.list_objects_v2(Bucket=BUCKET, Prefix="tree").get("KeyCount")
    expect(left == 0, "%s keys left under tree" % left)


@check("wrong_secret_signature_does_not_match")
def _():
    bad = client(secret=secret_key + "x", retries={"max_attempts": 1})
    code, status = error_code(lambda: bad.list_objects_v2(Bucket=BUCKET))
    expect((code, status) == ("SignatureDoesNotMatch", 403), "%s %s" % (status, code))
    code, status = error_code(lambda: bad.put_object(Bucket=BUCKET, Key="small/forged.bin", Body=b"forged"))
    expect((code, status) == ("SignatureDoesNotMatch", 403), "PUT: %s %s" % (status, code))
    code, status = error_code(lambda: s3.head_object(Bucket=BUCKET, Key="small/forged.bin"))
    expect(status == 404, "a PUT with a wrong secret stored an object")


@check("unsupported_subresource_not_implemented")
def _():
    code, status = error_code(lambda: s3.get_bucket_policy(Bucket=BUCKET))
    expect((code, status) == ("NotImplemented", 501), "%s %s" % (status, code))


ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"


def public_read(grants):
    return any(g["Grantee"].get("URI") == ALL_USERS and g["Permission"] == "READ" for g in grants)


@check("canned_acls_and_unsigned_read")
def _():
    key = "acl/public.bin"
    s3.put_object(Bucket=BUCKET, Key=key, Body=SMALL, ACL="public-read")
    expect(public_read(s3.get_object_acl(Bucket=BUCKET, Key=key)["Grants"]), "object ACL not public-read")
    url = "%s/%s/%s" % (endpoint, BUCKET, key)
    with urllib.request.urlopen(url, timeout=30) as r:  # unsigned
        expect(r.status == 200 and r.read() == SMALL, "unsigned GET of a public-read object")
    s3.put_object_acl(Bucket=BUCKET, Key=key, ACL="private")
    expect(not public_read(s3.get_object_acl(Bucket=BUCKET, Key=key)["Grants"]), "object ACL still public-read")
    try:
        urllib.request.urlopen(url, timeout=30)
        raise AssertionError("an unsigned GET of a private object was served")
    except urllib.error.HTTPError as e:
        expect(e.code == 403, "unsigned GET of a private object: %s" % e.code)
    expect(not public_read(s3.get_bucket_acl(Bucket=BUCKET)["Grants"]), "bucket ACL not private")
    code, status = error_code(lambda: s3.put_bucket_acl(Bucket=BUCKET, ACL="public-read-write"))
    expect((code, status) == ("NotImplemented", 501), "public-read-write: %s %s" % (status, code))
    expect(not public_read(s3.get_bucket_acl(Bucket=BUCKET)["Grants"]), "a refused ACL changed the bucket's")
    s3.delete_object(Bucket=BUCKET, Key=key)


@check("empty_and_delete_bucket")
def _():
    code, status = error_code(lambda: s3.delete_bucket(Bucket=BUCKET))
    expect((code, status) == ("BucketNotEmpty", 409), "deleting a non-empty bucket: %s %s" % (status, code))
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        keys += [o["Key"] for o in page.get("Contents", [])]
    for i in range(0, len(keys), 1000):
        r = s3.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]],
                                                     "Quiet": True})
        expect(not r.get("Errors"), "Errors %r" % r.get("Errors"))
    s3.delete_bucket(Bucket=BUCKET)
    code, status = error_code(lambda: s3.head_bucket(Bucket=BUCKET))
    expect(status == 404, "HEAD of the deleted bucket: %s" % status)
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    expect(BUCKET not in names, "still listed: %s" % names)


if os.path.exists(BIG):
    os.remove(BIG)
passed, failed = results.count(True), results.count(False)
print("SUMMARY passed=%d failed=%d" % (passed, failed), flush=True)
sys.exit(1 if failed else 0)
